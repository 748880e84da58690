/* proc.h — running other programs, for the one tool that does (mps-try):
 * an argv, never a shell; in a folder of the caller's choice; standard
 * input from /dev/null, standard output and error to files; in a process
 * group of its own, killed whole (SIGKILL to the group) when its time
 * limit passes.  Also the private temporary folders those programs work
 * in: made with mkdtemp, removed afterwards, and those of dead runs
 * removed at the next run.
 *
 * POSIX.1-2008 only (fork, execvp, setpgid, waitpid, kill, mkdtemp), so
 * that it builds on macOS and Linux alike.
 */
#ifndef MK_PROC_H
#define MK_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* The outcome of one program. */
struct proc_result {
	int started;      /* 1 when the program was executed; 0 when it could
	                     not be (not found, not executable: errno_ set) */
	int errno_;       /* the exec error when !started */
	int exited;       /* 1: it exited; status holds its exit status */
	int status;
	int signaled;     /* 1: a signal ended it (signal holds which) */
	int signal;
	int timed_out;    /* 1: the time limit passed and the group was killed */
	double seconds;   /* wall time, start to end */
};

/* A started program (proc_start), to wait for later (proc_wait). */
struct proc {
	pid_t pid;
	int errpipe;      /* read end: the child writes errno here when exec fails */
	double start;     /* monotonic seconds at start */
	double limit;     /* seconds; <= 0: none */
};

/* PROC_INHERIT: as OUT_PATH or ERR_PATH, keep the caller's descriptor
 * (mps-run's script writes to the tool's own stdout and stderr). */
extern const char proc_inherit[];
#define PROC_INHERIT proc_inherit

/* proc_start: start ARGV[0] (looked up in PATH when it holds no '/',
 * execvp) with arguments ARGV (NULL-terminated) in folder CWD (NULL: the
 * current one), stdin /dev/null, stdout to the file OUT_PATH and stderr
 * to ERR_PATH (created or truncated, mode 0600; NULL: /dev/null), with
 * the environment unchanged.  The program leads a new process group, so
 * that proc_wait can kill it and every process it started.  LIMIT is the
 * time limit in seconds (<= 0: none); the program and what it starts
 * also get a CPU-time limit (setrlimit RLIMIT_CPU) of LIMIT + 2 seconds,
 * so that none of them outlives a killed caller by long.  Returns 0 with *p filled, or -1
 * with errno set when fork or a pipe failed (nothing started). */
int proc_start(struct proc *p, char *const argv[], const char *cwd,
               const char *out_path, const char *err_path, double limit);

/* proc_wait: wait for p to end, killing its process group with SIGKILL
 * when its time limit passes (then r->timed_out is 1 and the group is
 * reaped).  Fills *r.  Returns 0, or -1 with errno set when waitpid
 * failed. */
int proc_wait(struct proc *p, struct proc_result *r);

/* proc_run: proc_start and proc_wait in one. */
int proc_run(char *const argv[], const char *cwd, const char *out_path,
             const char *err_path, double limit, struct proc_result *r);

/* proc_find_program: the path of NAME as execvp would run it: NAME itself
 * when it holds a '/' (if it is an executable regular file), else the
 * first executable regular file NAME in the folders of PATH.  Malloc'd
 * (caller frees), or NULL when there is none. */
char *proc_find_program(const char *name);

/* ---- private temporary folders ---- */

/* tmp_base: $TMPDIR when set to an absolute path, else "/tmp" (a pointer
 * into the environment or a constant; do not free). */
const char *tmp_base(void);

/* tmp_make: make a private folder TMPBASE/PREFIX.PID.XXXXXX (mkdtemp,
 * mode 0700) and write the running process's id into its file "pid", so
 * that a later run can tell a folder of a dead run (tmp_sweep).  Returns
 * the malloc'd path, or NULL with errno set. */
char *tmp_make(const char *prefix);

/* tmp_sweep: remove every folder TMPBASE/PREFIX.* that belongs to this
 * user and whose "pid" file names a process that no longer exists
 * (kill(pid, 0) fails with ESRCH), or that has no "pid" file and is more
 * than an hour old (a run killed between mkdtemp and writing it).
 * Returns how many were removed.  Errors are ignored: a folder that
 * cannot be removed stays. */
int tmp_sweep(const char *prefix);

/* rm_tree: remove PATH and, when it is a folder, everything under it
 * (symbolic links are removed, never followed).  Returns 0, or -1 with
 * errno set for the first thing that could not be removed (it goes on
 * removing the rest). */
int rm_tree(const char *path);

#endif
