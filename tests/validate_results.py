#!/usr/bin/python3
"""validate_results.py - check harness result files against
docs/result.schema.json (JSON Schema draft 2020-12) with the standard
validator (Debian's python3-jsonschema).

    validate_results.py SCHEMA PATH...

A PATH that is a file must be a valid result. A directory is walked for
*.json and *.json.gz files (compressed results read as they are, and an
archive DIR.tar.xz as the directory it holds, scripts/resultpack.py); those
that are not results (a Chrome trace, a sweep grid: no "config", no
"schema") are skipped. Prints one line per invalid file with
every violation, and a summary; exits 0 if every result is valid, 1 if one
is not or none was found, 2 on bad usage, 77 without python3-jsonschema.
"""

import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import harnesslib as hl  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("validate_results: python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)


def candidates(paths):
    """(path, named explicitly): results under directories (archives read as the
    directories they stand for, scripts/resultpack.py), files as given."""
    for p in paths:
        if os.path.isdir(p) or p.endswith(".tar.xz") or not os.path.exists(p):
            found = hl.find_result_files([p])
            if found != [p]:
                for f in found:
                    yield f, False
                continue
        yield p, True


def main(argv):
    if len(argv) < 3:
        print("usage: validate_results.py SCHEMA PATH...", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    if cls is not jsonschema.Draft202012Validator:
        print("validate_results: %s is not a draft 2020-12 schema" % argv[1], file=sys.stderr)
        return 1
    cls.check_schema(schema)
    validator = cls(schema)
    good, bad, engines = 0, 0, {}
    for path, explicit in candidates(argv[2:]):
        try:
            doc = hl.read_json(path)
        except (OSError, ValueError) as e:
            print("%s: cannot read: %s" % (path, e))
            bad += 1
            continue
        if not explicit and not (isinstance(doc, dict) and ({"schema", "config"} & set(doc))):
            continue    # a trace, a sweep grid or another tool's file
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            for e in errors[:10]:
                where = "/".join(str(x) for x in e.absolute_path) or "(top)"
                print("%s: %s: %s" % (path, where, e.message))
            continue
        good += 1
        eng = doc["config"]["engine"]
        engines[eng] = engines.get(eng, 0) + 1
    summary = ", ".join("%s %d" % kv for kv in sorted(engines.items()))
    print("validate_results: %d valid (%s), %d invalid" % (good, summary or "none", bad))
    if bad or not good:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
