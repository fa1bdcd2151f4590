/* outfile.c - output files written in place, through a rename, or to stdout (outfile.h). */
#define _GNU_SOURCE	/* mkostemps */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- temporary files and signals ------------------------------------- */

/*
 * The signal handler may only touch these: paths in static storage and
 * flags, one slot per temporary file (a comparison run has several per
 * policy). unlink(), sigaction() and raise() are async-signal-safe;
 * nothing else is called from the handler.
 */
#define CLEANUP_SLOTS 256
static char cleanup_path[CLEANUP_SLOTS][PATH_MAX];
static volatile sig_atomic_t cleanup_armed[CLEANUP_SLOTS];

void outfile_cleanup(void)
{
	for (int i = 0; i < CLEANUP_SLOTS; i++)
		if (cleanup_armed[i])
			unlink(cleanup_path[i]);
}

/*
 * Remove the temporary files, then let the signal take its default action
 * (SA_RESETHAND restored it on entry; the signal stays blocked until the
 * handler returns), so that the parent sees the process die of it. As PID 1
 * (a container's first process) a signal's default action is to be
 * ignored: the run would go on without its temporary files and fail at the
 * end, and `docker stop` could not stop it. There the handler exits itself
 * with the status a shell gives a death by the signal, 128 + its number.
 */
static void on_signal(int sig)
{
	outfile_cleanup();
	if (getpid() == 1)
		_exit(128 + sig);
	raise(sig);
}

/*
 * INT, TERM, HUP and QUIT end a run; ABRT is a failed CHECK. A shell
 * without job control starts background commands with SIGINT ignored; a
 * program that catches it anyway could not be left running in the
 * background of a script. Keep an ignored signal ignored.
 */
static const int cleanup_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT };

static void install_handlers(void)
{
	const int *sigs = cleanup_sigs;
	enum { NSIGS = sizeof cleanup_sigs / sizeof cleanup_sigs[0] };
	static bool installed;
	struct sigaction sa, old;

	if (installed)
		return;
	installed = true;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIGS; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < NSIGS; i++) {
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(outfile_cleanup);
}

/*
 * SIGPIPE (stdout into `| head`, a FIFO whose reader left) and SIGXFSZ
 * (`ulimit -f`) would kill the run silently, with its temporary files left
 * behind. Ignored, they make the write fail with EPIPE or EFBIG instead:
 * an output's commit then reports it and removes its temporary, and the
 * results that can still be written are.
 */
/* The crash line, composed at start-up: the handler only write()s it. */
static char crash_msg[256];
static size_t crash_len;

/*
 * SIGSEGV or SIGBUS: most often, under a memory limit (`ulimit -v`), the
 * allocator itself failing to map memory (jemalloc crashes instead of
 * returning NULL when its own metadata cannot be mapped). One line says so,
 * the temporaries go, and the signal's default action follows (SA_RESETHAND;
 * as PID 1, an explicit exit).
 */
static void on_crash(int sig)
{
	(void)!write(STDERR_FILENO, crash_msg, crash_len);
	outfile_cleanup();
	if (getpid() == 1)
		_exit(128 + sig);
	raise(sig);
}

static void install_crash_handler(void)
{
	static char altstack[64 * 1024];
	struct rlimit rl;
	struct sigaction sa, old;
	int n;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		n = snprintf(crash_msg, sizeof crash_msg, "harness: crashed (SIGSEGV or SIGBUS) under a "
			     "memory limit of %llu KiB (ulimit -v): most likely memory ran out where "
			     "no error can be returned; raise the limit\n",
			     (unsigned long long)(rl.rlim_cur / 1024));
	else
		n = snprintf(crash_msg, sizeof crash_msg, "harness: crashed (SIGSEGV or SIGBUS): a "
			     "bug; please report it with the command line\n");
	crash_len = n > 0 && (size_t)n < sizeof crash_msg ? (size_t)n : 0;
	/* A stack overflow needs a stack of its own to run the handler. */
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	/* A sanitizer's handler, installed before main, stays. */
	static const int sigs[] = { SIGSEGV, SIGBUS };
	for (size_t i = 0; i < 2; i++)
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO))
			sigaction(sigs[i], &sa, NULL);
}

void outfile_signals(void)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	install_crash_handler();
}

/* Returns the slot, or -1 if every slot is in use. */
static int arm(const char *tmp)
{
	install_handlers();
	for (int i = 0; i < CLEANUP_SLOTS; i++) {
		if (cleanup_armed[i])
			continue;
		snprintf(cleanup_path[i], sizeof cleanup_path[i], "%s", tmp);
		/* The path must be complete before the handler can see the flag. */
		atomic_signal_fence(memory_order_seq_cst);
		cleanup_armed[i] = 1;
		return i;
	}
	return -1;
}

static void disarm(int slot)
{
	if (slot < 0)
		return;
	cleanup_armed[slot] = 0;
	atomic_signal_fence(memory_order_seq_cst);
}

/* ---- opening ----------------------------------------------------------- */

static int failed(int e, char *err, size_t len, const char *what, const char *path,
		  const char *why)
{
	snprintf(err, len, "cannot write the %s to %.900s: %s", what, path, why ? why : strerror(e));
	return -e;
}

/*
 * Is st the node stdout writes to? Only pipes, sockets and regular files
 * count: there the document and the summary would mix (or, for a regular
 * file, a second open file description would overwrite from offset 0). A
 * terminal or /dev/null is simply written in place.
 */
static bool is_stdout_node(const struct stat *st)
{
	struct stat out;
	return !S_ISCHR(st->st_mode) && fstat(STDOUT_FILENO, &out) == 0 &&
	       out.st_dev == st->st_dev && out.st_ino == st->st_ino;
}

/* Is st the node stderr writes to (a pipe, socket or regular file)? */
static bool is_stderr_node(const struct stat *st)
{
	struct stat e;
	return !S_ISCHR(st->st_mode) && fstat(STDERR_FILENO, &e) == 0 &&
	       e.st_dev == st->st_dev && e.st_ino == st->st_ino;
}

static int refuse_stderr(const char *what, const char *path, char *err, size_t len)
{
	return failed(EBUSY, err, len, what, path,
		      "it is the standard error, where progress and errors go");
}

/*
 * The output takes over the process's stdout: a private duplicate for the
 * document, and fd 1 pointed at stderr for everything else printed there.
 */
static int claim_stdout(struct outfile *o, const char *what, char *err, size_t len)
{
	static bool claimed;
	struct stat st;

	if (claimed)
		return failed(EBUSY, err, len, what, o->path, "another output already goes to stdout");
	fflush(stdout);
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return failed(errno, err, len, what, "stdout", NULL);
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int e = errno;
		close(fd);
		return failed(e, err, len, what, "stdout", NULL);
	}
	claimed = true;
	o->mode = OUTFILE_STDOUT;
	o->to_stdout = true;
	o->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return failed(ENOMEM, err, len, what, "stdout", NULL);
	}
	return 0;
}

/* Through a link or into a node that is not a regular file: never replaced. */
static int open_in_place(struct outfile *o, const char *what, char *err, size_t len)
{
	struct stat st;

	if (stat(o->path, &st) == 0 && S_ISDIR(st.st_mode))
		return failed(EISDIR, err, len, what, o->path, "it is a directory");
	int fd = open(o->path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0)
		return failed(errno, err, len, what, o->path, NULL);
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return failed(e, err, len, what, o->path, NULL);
	}
	if (is_stdout_node(&st)) {
		close(fd);
		return claim_stdout(o, what, err, len);
	}
	if (is_stderr_node(&st)) {
		close(fd);
		return refuse_stderr(what, o->path, err, len);
	}
	o->mode = OUTFILE_IN_PLACE;
	o->regular = S_ISREG(st.st_mode);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return failed(ENOMEM, err, len, what, o->path, NULL);
	}
	return 0;
}

/* The mode a new file gets from open(path, O_CREAT, 0666): 0666 less the
 * umask (read by setting it, then put back; outputs open before any thread
 * starts). */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

/*
 * A temporary file beside o->dest, DEST.<pid>.XXXXXX.tmp: mkstemp's random
 * part makes the name unique, so that a stale temporary of an earlier run
 * with the same PID (always PID 1 in a container) cannot block this one.
 */
static int open_rename(struct outfile *o, const char *what, char *err, size_t len)
{
	int n = snprintf(o->tmp, sizeof o->tmp, "%s.%ld.XXXXXX.tmp", o->dest, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof o->tmp)
		return failed(ENAMETOOLONG, err, len, what, o->path, "path too long");
	/* The signals whose handler removes temporaries stay blocked from the
	 * file's creation until its slot names it: a signal in between would
	 * leave it behind. */
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof cleanup_sigs / sizeof cleanup_sigs[0]; i++)
		sigaddset(&block, cleanup_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int fd = mkostemps(o->tmp, 4, O_CLOEXEC);
	int e = errno;
	const char *why = NULL;
	if (fd >= 0) {
		o->slot = arm(o->tmp);
		if (o->slot < 0) {
			unlink(o->tmp);
			close(fd);
			fd = -1;
			e = EMFILE;
			why = "too many output files";
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		return failed(e, err, len, what, o->path, why);
	o->mode = OUTFILE_RENAME;
	o->regular = true;
	o->new_mode = new_file_mode();
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		outfile_abort(o);
		return failed(ENOMEM, err, len, what, o->path, NULL);
	}
	return 0;
}

/* The directory part of path: ".", "/" or everything before the last '/'. */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

int outfile_check(const char *what, const char *path, char *err, size_t len)
{
	struct stat st;
	char dir[PATH_MAX];

	if (!path[0])
		return failed(ENOENT, err, len, what, "''", "empty path");
	if (strlen(path) >= sizeof dir)
		return failed(ENAMETOOLONG, err, len, what, path, "path too long");
	if (strcmp(path, "-") == 0)
		return 0;
	bool exists = stat(path, &st) == 0;
	if (exists) {
		if (S_ISDIR(st.st_mode))
			return failed(EISDIR, err, len, what, path, "it is a directory");
		if (!S_ISREG(st.st_mode) && access(path, W_OK) != 0)
			return failed(errno, err, len, what, path, NULL);
		if (is_stderr_node(&st) && !is_stdout_node(&st))
			return refuse_stderr(what, path, err, len);
	} else if (errno != ENOENT) {
		return failed(errno, err, len, what, path, NULL);
	}
	/* A new or regular file needs a writable directory (the temporary
	 * file) or, failing that, a writable file (written in place); a link
	 * or a special file is opened in place. */
	if (lstat(path, &st) == 0 && (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)))
		return 0;
	dir_of(path, dir, sizeof dir);
	if (access(dir, W_OK | X_OK) != 0 && !(exists && access(path, W_OK) == 0))
		return failed(errno, err, len, what, path, NULL);
	return 0;
}

/* A temporary beside o->dest could not be created for want of permission
 * (a directory the user cannot write, a read-only mount): in place. */
static bool no_temporary(int rc)
{
	return rc == -EACCES || rc == -EPERM || rc == -EROFS;
}

static int open_start(struct outfile *o, const char *what, const char *path, char *err,
		      size_t len)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	if (!path[0])
		return failed(ENOENT, err, len, what, "''", "empty path");
	if (strlen(path) >= sizeof o->path)
		return failed(ENAMETOOLONG, err, len, what, path, "path too long");
	strcpy(o->path, path);
	strcpy(o->dest, path);
	return 0;
}

int outfile_open(struct outfile *o, const char *what, const char *path, char *err, size_t len)
{
	struct stat st, t;
	int rc = open_start(o, what, path, err, len);

	if (rc)
		return rc;
	if (strcmp(path, "-") == 0)
		return claim_stdout(o, what, err, len);
	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return failed(EISDIR, err, len, what, path, "it is a directory");
		/* A link to a regular file: the file it resolves to is replaced
		 * through a temporary beside it, as a regular file named directly
		 * is, so that a failed write (a full disk) leaves the old file
		 * whole. The link stays a link. */
		if (S_ISLNK(st.st_mode) && stat(path, &t) == 0 && S_ISREG(t.st_mode)) {
			char real[PATH_MAX];
			if (is_stdout_node(&t))
				return claim_stdout(o, what, err, len);
			if (is_stderr_node(&t))
				return refuse_stderr(what, path, err, len);
			if (realpath(path, real) && strlen(real) < sizeof o->dest) {
				strcpy(o->dest, real);
				rc = open_rename(o, what, err, len);
				if (!no_temporary(rc))
					return rc;
				strcpy(o->dest, path);
			}
			return open_in_place(o, what, err, len);
		}
		if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode))
			return open_in_place(o, what, err, len);
		if (is_stdout_node(&st))
			return claim_stdout(o, what, err, len);
		if (is_stderr_node(&st))
			return refuse_stderr(what, path, err, len);
		rc = open_rename(o, what, err, len);
		/* A writable file in a directory that takes no new file: in place. */
		if (no_temporary(rc) && access(path, W_OK) == 0)
			return open_in_place(o, what, err, len);
		return rc;
	} else if (errno != ENOENT) {
		return failed(errno, err, len, what, path, NULL);
	}
	return open_rename(o, what, err, len);
}

int outfile_open_new(struct outfile *o, const char *what, const char *stem, const char *ext,
		     char *err, size_t len)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof path, "%s%s", stem, ext);

	if (n < 0 || (size_t)n >= sizeof path || strlen(ext) >= sizeof o->ext)
		return failed(ENAMETOOLONG, err, len, what, stem, "path too long");
	int rc = open_start(o, what, path, err, len);
	if (rc)
		return rc;
	o->no_replace = true;
	o->stem_len = strlen(stem);
	strcpy(o->ext, ext);
	return open_rename(o, what, err, len);
}

/* ---- finishing --------------------------------------------------------- */

/*
 * The mode (and, where allowed, the owner) the file at o->dest has, given
 * to the temporary before it replaces it: a 0600 result stays 0600. A new
 * file gets what open(0666) would have given it. fchown first: it may clear
 * the set-id bits that fchmod then sets back.
 */
static int keep_mode(struct outfile *o)
{
	struct stat st;
	int fd = fileno(o->f);

	if (!o->no_replace && stat(o->dest, &st) == 0 && S_ISREG(st.st_mode)) {
		if (st.st_uid != geteuid() || st.st_gid != getegid())
			(void)!fchown(fd, st.st_uid, st.st_gid);	/* best effort */
		return fchmod(fd, st.st_mode & 07777) == 0 ? 0 : errno;
	}
	return fchmod(fd, o->new_mode) == 0 ? 0 : errno;
}

/*
 * A new name for a default result: the first free one of STEM.EXT,
 * STEM-2.EXT, ... taken by link(2), which fails if the name exists, so
 * that two runs finishing at once cannot both take one name (checking
 * for a free name and then renaming onto it could). A file system without
 * hard links gets the name reserved by an O_EXCL create, then the rename.
 */
static int link_new(struct outfile *o)
{
	char name[PATH_MAX];

	for (int i = 1; i < 1000; i++) {
		int n = i == 1 ? snprintf(name, sizeof name, "%.*s%s", (int)o->stem_len, o->path,
					  o->ext)
			       : snprintf(name, sizeof name, "%.*s-%d%s", (int)o->stem_len,
					  o->path, i, o->ext);
		if (n < 0 || (size_t)n >= sizeof name)
			return ENAMETOOLONG;
		if (link(o->tmp, name) == 0) {
			unlink(o->tmp);
		} else if (errno == EEXIST) {
			continue;
		} else if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS ||
			   errno == EMLINK) {
			int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd < 0 && errno == EEXIST)
				continue;
			if (fd < 0)
				return errno;
			close(fd);
			if (rename(o->tmp, name) != 0) {
				int e = errno;
				unlink(name);
				return e;
			}
		} else {
			return errno;
		}
		memcpy(o->path, name, (size_t)n + 1);
		memcpy(o->dest, name, (size_t)n + 1);
		return 0;
	}
	return EEXIST;
}

int outfile_commit(struct outfile *o, char *err, size_t len)
{
	int rc = 0;

	if (o->mode == OUTFILE_NONE)
		return 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		rc = errno ? errno : EIO;
	/* In place, a regular file keeps only what was written now. */
	if (rc == 0 && o->mode == OUTFILE_IN_PLACE && o->regular) {
		off_t end = ftello(o->f);
		if (end < 0 || ftruncate(fileno(o->f), end) != 0)
			rc = errno;
	}
	if (rc == 0 && o->mode == OUTFILE_RENAME)
		rc = keep_mode(o);
	/* On disk before the rename: a reader finds the old file or a whole one. */
	if (rc == 0 && o->mode == OUTFILE_RENAME && fsync(fileno(o->f)) != 0)
		rc = errno;
	if (fclose(o->f) != 0 && rc == 0)
		rc = errno;
	o->f = NULL;
	if (rc == 0 && o->mode == OUTFILE_RENAME)
		rc = o->no_replace ? link_new(o) : rename(o->tmp, o->dest) == 0 ? 0 : errno;
	if (rc && o->mode == OUTFILE_RENAME)
		unlink(o->tmp);
	disarm(o->slot);
	o->slot = -1;
	o->mode = OUTFILE_NONE;
	if (rc) {
		snprintf(err, len, "cannot write %.900s: %s", o->path, strerror(rc));
		return -rc;
	}
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->mode == OUTFILE_RENAME)
		unlink(o->tmp);
	disarm(o->slot);
	o->slot = -1;
	o->mode = OUTFILE_NONE;
}

const char *outfile_name(const struct outfile *o)
{
	return o->to_stdout ? "stdout" : o->path;
}

/* ---- collisions -------------------------------------------------------- */

/* realpath of the directory, then the last component: names a file that
 * does not exist yet. */
static void canonical(const char *path, char *buf, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	dir_of(path, dir, sizeof dir);
	if (realpath(dir, real))
		snprintf(buf, len, "%s/%s", real, base);
	else
		snprintf(buf, len, "%s", path);
}

static bool names_stdout(const char *path)
{
	struct stat st;
	return strcmp(path, "-") == 0 || (stat(path, &st) == 0 && is_stdout_node(&st));
}

bool outfile_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[2 * PATH_MAX], cb[2 * PATH_MAX];

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
	if (names_stdout(a) && names_stdout(b))
		return true;
	if (strcmp(a, b) == 0)
		return true;
	canonical(a, ca, sizeof ca);
	canonical(b, cb, sizeof cb);
	return strcmp(ca, cb) == 0;
}
