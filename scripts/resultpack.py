#!/usr/bin/python3
"""resultpack.py - a directory of raw results stored as one compressed archive.

results/reference keeps each raw result directory (DIR/, as scripts/sweep.py and the
harness wrote it: results, logs, sweep.log, commands.sh) as one archive beside it,
DIR.tar.xz. The results inside are plain JSON, so xz compresses them together: the
histogram and counter layouts repeat from one result to the next, and one archive is
about half the size of the same results gzip-compressed one by one (and a few files
instead of thousands). Everything that reads results reads an archive as the directory
it stands for (scripts/harnesslib.py find_result_files and read_json); a result inside
one is named DIR.tar.xz/NAME.json.

    resultpack.py pack DIR...        DIR -> DIR.tar.xz (DIR removed); *.json.gz inside
                                     stored as plain *.json
    resultpack.py unpack ARCHIVE...  DIR.tar.xz -> DIR/ (archive removed); results come
                                     out gzip-compressed (NAME.json.gz), as reproduce.sh
                                     works on them
    resultpack.py list ARCHIVE       the members, one per line
    resultpack.py cat ARCHIVE MEMBER one member on stdout (a result: pipe it to jq)

The same directory always packs to the same bytes: members sorted by name, owner root,
mode 0644, time 0, xz preset 9e, so a part rebuilt without change leaves no diff. `tar`
reads the archives too: `tar -xJf DIR.tar.xz -C DIR` or `tar -xOJf DIR.tar.xz NAME.json`.
"""
import gzip
import io
import lzma
import os
import shutil
import sys
import tarfile

SUFFIX = ".tar.xz"
PRESET = 9 | lzma.PRESET_EXTREME

_cache = {}     # archive path -> {member name: bytes}


def is_archive_name(name):
    return name.endswith(SUFFIX)


def members(archive):
    """{name: bytes} of an archive's regular files (read once per process).
    OSError if it cannot be read, whatever the reason (a damaged archive too)."""
    key = os.path.abspath(archive)
    m = _cache.get(key)
    if m is None:
        m = {}
        try:
            with tarfile.open(archive, "r:xz") as tf:
                for ti in tf:
                    if ti.isfile():
                        m[ti.name] = tf.extractfile(ti).read()
        except (tarfile.TarError, lzma.LZMAError, EOFError) as e:
            raise OSError(5, "not a readable archive (%s)" % e, archive)
        _cache[key] = m
    return m


def split_member(path):
    """(archive, member) when `path` names a file inside an archive
    (DIR.tar.xz/NAME.json, or deeper), else None."""
    parts = path.split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        if is_archive_name(parts[i - 1]):
            arch = os.sep.join(parts[:i])
            if os.path.isfile(arch):
                return arch, "/".join(parts[i:])
    return None


def archive_for(path):
    """The archive that stands for a directory path that does not exist
    (DIR given, DIR.tar.xz on disk), else None."""
    p = path.rstrip(os.sep)
    if p and not os.path.exists(p) and os.path.isfile(p + SUFFIX):
        return p + SUFFIX
    return None


def resolve(path):
    """A path into a directory that is stored packed, as the archive's member:
    DIR/NAME.json or DIR/NAME.json.gz, with DIR not on disk and DIR.tar.xz on
    it, is DIR.tar.xz/NAME.json (the name a result had before its directory
    was packed still reads). Any other path as it is."""
    if os.path.exists(path):
        return path
    parts = path.split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        d = os.sep.join(parts[:i])
        if d and not os.path.exists(d) and os.path.isfile(d + SUFFIX):
            rest = parts[i:]
            if rest[-1].endswith(".json.gz"):
                rest[-1] = rest[-1][:-3]
            return os.sep.join([d + SUFFIX] + rest)
    return path


def read_member(path):
    """The bytes of DIR.tar.xz/NAME; OSError if there is no such member."""
    sm = split_member(path)
    if sm is None:
        raise FileNotFoundError(2, "No such file or directory", path)
    arch, name = sm
    try:
        return members(arch)[name]
    except KeyError:
        raise FileNotFoundError(2, "no member %s in %s" % (name, arch), path)


def _add(tf, name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    ti.mode = 0o644
    ti.mtime = 0
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    tf.addfile(ti, io.BytesIO(data))


def pack(d):
    """DIR -> DIR.tar.xz, written whole before DIR is removed (an interrupted pack
    leaves DIR as it was and no archive)."""
    d = d.rstrip(os.sep)
    if not os.path.isdir(d):
        raise OSError(2, "not a directory", d)
    files = []
    for root, dirs, names in os.walk(d):
        dirs.sort()
        for n in names:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not n.endswith(".tmp"):
                files.append(os.path.relpath(p, d).replace(os.sep, "/"))
    entries = {}
    for rel in files:
        with open(os.path.join(d, rel), "rb") as f:
            data = f.read()
        if rel.endswith(".json.gz"):
            rel, data = rel[:-3], gzip.decompress(data)
        if rel in entries:
            raise OSError(17, "both %s and %s.gz" % (rel, rel), d)
        entries[rel] = data
    arch = d + SUFFIX
    tmp = "%s.%d.tmp" % (arch, os.getpid())
    try:
        with lzma.open(tmp, "wb", preset=PRESET) as xz, \
                tarfile.open(fileobj=xz, mode="w", format=tarfile.GNU_FORMAT) as tf:
            for rel in sorted(entries):
                _add(tf, rel, entries[rel])
        os.replace(tmp, arch)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _cache.pop(os.path.abspath(arch), None)
    shutil.rmtree(d)
    return arch


def unpack(arch):
    """DIR.tar.xz -> DIR/ (results as NAME.json.gz, gzip -9n's bytes), then the
    archive removed. Refuses a DIR that exists."""
    if not is_archive_name(arch) or not os.path.isfile(arch):
        raise OSError(2, "not an archive (%s)" % SUFFIX, arch)
    d = arch[:-len(SUFFIX)]
    if os.path.exists(d):
        raise OSError(17, "exists: unpack would mix two copies", d)
    tmp = "%s.%d.tmp" % (d, os.getpid())
    os.makedirs(tmp)
    try:
        for name, data in sorted(members(arch).items()):
            if name.startswith("/") or ".." in name.split("/"):
                raise OSError(22, "unsafe member name %s" % name, arch)
            if name.endswith(".json"):
                name += ".gz"
                data = gzip.compress(data, compresslevel=9, mtime=0)
            p = os.path.join(tmp, *name.split("/"))
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
        os.rename(tmp, d)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.unlink(arch)
    _cache.pop(os.path.abspath(arch), None)
    return d


def main(argv):
    usage = ("usage: resultpack.py pack DIR... | unpack ARCHIVE... | list ARCHIVE | "
             "cat ARCHIVE MEMBER")
    if len(argv) < 3 or argv[1] not in ("pack", "unpack", "list", "cat"):
        print(usage, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "pack":
            for d in args:
                pack(d)
        elif cmd == "unpack":
            for a in args:
                unpack(a)
        elif cmd == "list":
            for n in sorted(members(args[0])):
                print(n)
        else:
            if len(args) != 2:
                print(usage, file=sys.stderr)
                return 2
            sys.stdout.buffer.write(read_member(os.path.join(args[0], args[1])))
    except OSError as e:
        print("resultpack: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
