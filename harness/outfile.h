/*
 * outfile.h - every file the harness writes (--json, --hdr, --trace,
 * --calibrate): opened before any work starts, so that a bad path costs no
 * time, and finished after it.
 *
 * How a file is written depends on what PATH names when it is opened:
 *
 *   -                      standard output. Whatever the harness prints on
 *                          stdout (the summary) moves to stderr, so that
 *                          `harness ... --json - | python3 -m json.tool`
 *                          reads one clean document.
 *   the process's stdout   (/dev/stdout, /proc/self/fd/1, or any name of the
 *                          same pipe, socket or regular file) is treated as
 *                          `-`; a terminal or /dev/null is written in place.
 *   a symbolic link to a   the file the link resolves to is replaced as a
 *   regular file           regular file named directly is (below); the link
 *                          stays a link.
 *   another symbolic link, written in place, through the link: the node at
 *   or an existing file    PATH is never replaced (a FIFO stays a FIFO,
 *   that is not regular    /dev/null stays a device, a link stays a link).
 *   a regular file, or a   a temporary file beside it (or beside the file a
 *   new name               link resolves to), PATH.<pid>.XXXXXX.tmp, unique
 *                          (mkstemp), renamed over PATH at commit: a reader
 *                          sees the old file or the whole new one, and a
 *                          failed write (a full disk) leaves the old one
 *                          whole. The new file keeps the old one's mode.
 *   a regular file whose   written in place when no temporary can be made
 *   directory is read-only beside it; truncated at commit to what was
 *                          written.
 *   the process's stderr   (a pipe, socket or regular file) refused: the
 *                          progress lines and errors go there.
 *
 * A default result name (outfile_open_new) is taken only at commit, by
 * link(2), which fails on a name that exists: concurrent runs that chose
 * the same name end with distinct files.
 *
 * Temporary files are removed by outfile_abort, on SIGINT, SIGTERM, SIGHUP
 * and SIGQUIT (the signal then takes its default action, so the exit status
 * says which signal it was; as PID 1, where that action is to ignore it, the
 * process exits with 128 + the signal's number), on abort() (a failed
 * CHECK), on exit(), and by outfile_cleanup() before an _exit() (the
 * watchdog's). SIGPIPE and SIGXFSZ are ignored (outfile_signals): a write
 * into a closed pipe or past `ulimit -f` fails and is reported.
 */
#ifndef HARNESS_OUTFILE_H
#define HARNESS_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum outfile_mode {
	OUTFILE_NONE,		/* not open */
	OUTFILE_STDOUT,		/* "-" or the process's stdout */
	OUTFILE_IN_PLACE,	/* through a link, or a non-regular file */
	OUTFILE_RENAME,		/* temporary file renamed over PATH */
};

struct outfile {
	char path[PATH_MAX];	/* as given; outfile_open_new: the name taken */
	char dest[PATH_MAX];	/* OUTFILE_RENAME: the file replaced (a link resolved) */
	char tmp[PATH_MAX];	/* OUTFILE_RENAME: the temporary file */
	char ext[16];		/* outfile_open_new: the extension after the stem */
	size_t stem_len;	/* outfile_open_new: path's stem */
	bool no_replace;	/* outfile_open_new: take a free name at commit */
	unsigned new_mode;	/* a new file's mode: 0666 less the umask */
	enum outfile_mode mode;
	bool regular;		/* the written node is a regular file */
	bool to_stdout;		/* OUTFILE_STDOUT, kept after commit */
	FILE *f;
	int slot;		/* signal-cleanup slot while tmp exists, else -1 */
};

/*
 * Open `path` for the output called `what` ("result", "histogram", ...).
 * Refuses a directory and a path that cannot be created or written. 0, or
 * -errno with one line in err.
 */
int outfile_open(struct outfile *o, const char *what, const char *path, char *err, size_t len);
/*
 * A new file named STEM.EXT, or STEM-2.EXT, STEM-3.EXT, ... if that name
 * is taken when the file is committed: never replaces a file. outfile_name
 * gives the name taken after the commit.
 */
int outfile_open_new(struct outfile *o, const char *what, const char *stem, const char *ext,
		     char *err, size_t len);
/*
 * What outfile_open would refuse, found without creating anything: a
 * directory, a missing or unwritable parent directory, an unwritable
 * file. Checking every output first lets a bad one fail before any other
 * output's temporary file exists. 0, or -errno with one line in err.
 */
int outfile_check(const char *what, const char *path, char *err, size_t len);
/* The stream to write to, between open and commit. */
static inline FILE *outfile_stream(struct outfile *o)
{
	return o->f;
}
/* Flush (and fsync a regular file), close, rename into place. 0, or -errno
 * with one line in err; on failure the temporary file is removed. */
int outfile_commit(struct outfile *o, char *err, size_t len);
/* Close and remove the temporary file, if any; nothing at PATH changes. */
void outfile_abort(struct outfile *o);
/* What a reader is told: "stdout" for the standard output, else PATH. */
const char *outfile_name(const struct outfile *o);

/*
 * Would `a` and `b` write the same node? Equal strings, two names of
 * stdout, or two names of one existing file (through links, too). Two
 * names of a character device such as /dev/null do not collide.
 */
bool outfile_same(const char *a, const char *b);

/* Ignore SIGPIPE and SIGXFSZ (a failed write is reported instead); at
 * start-up, before any output is opened. */
void outfile_signals(void);

/* Remove every temporary file now (async-signal-safe): before _exit(). */
void outfile_cleanup(void);

#endif
