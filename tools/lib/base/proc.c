/* proc.c — see proc.h. */
#include "base/proc.h"
#include "base/diag.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char proc_inherit[] = "";

static int redirect(int fd, const char *path, int flags)
{
	if (path == proc_inherit)
		return 0;
	int f = open(path ? path : "/dev/null", flags, 0600);
	if (f < 0)
		return -1;
	if (f != fd) {
		if (dup2(f, fd) < 0)
			return -1;
		close(f);
	}
	return 0;
}

int proc_start(struct proc *p, char *const argv[], const char *cwd,
               const char *out_path, const char *err_path, double limit)
{
	int pfd[2];
	pid_t pid;

	memset(p, 0, sizeof *p);
	if (pipe(pfd) != 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		int e;
		close(pfd[0]);
		fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
		setpgid(0, 0);
		if (limit > 0) {
			/* a CPU limit a little above the time limit, inherited by
			 * everything the program starts: should this process lose
			 * its parent (kill -9), nothing it left can loop forever */
			struct rlimit rl;
			rl.rlim_cur = (rlim_t)limit + 2;
			rl.rlim_max = (rlim_t)limit + 3;
			setrlimit(RLIMIT_CPU, &rl);
		}
		if ((cwd && chdir(cwd) != 0) ||
		    redirect(0, NULL, O_RDONLY) != 0 ||
		    redirect(1, out_path, O_WRONLY | O_CREAT | O_TRUNC) != 0 ||
		    redirect(2, err_path, O_WRONLY | O_CREAT | O_TRUNC) != 0)
			goto fail;
		execvp(argv[0], argv);
	fail:
		e = errno;
		if (write(pfd[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	/* the parent sets the group too, so that a kill right after the fork
	 * reaches it (the usual race of job-control shells) */
	setpgid(pid, pid);
	close(pfd[1]);
	p->pid = pid;
	p->errpipe = pfd[0];
	p->start = now();
	p->limit = limit;
	return 0;
}

int proc_wait(struct proc *p, struct proc_result *r)
{
	int st = 0, e = 0;
	long sleep_ns = 1000000; /* 1 ms, doubling to 50 ms */
	ssize_t got;

	memset(r, 0, sizeof *r);
	for (;;) {
		pid_t w = waitpid(p->pid, &st, WNOHANG);
		if (w == p->pid)
			break;
		if (w < 0 && errno != EINTR) {
			close(p->errpipe);
			return -1;
		}
		if (p->limit > 0 && now() - p->start > p->limit) {
			/* either kill may find nothing (ESRCH: the program ended
			 * meanwhile, or its group is gone); waitpid below reaps it
			 * all the same: a time-limit verdict, never an error */
			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
				;
			r->timed_out = 1;
			break;
		}
		{
			struct timespec ts = {0, sleep_ns};
			nanosleep(&ts, NULL);
			if (sleep_ns < 50000000)
				sleep_ns *= 2;
		}
	}
	/* whatever the group left running dies with it; the group is usually
	 * gone already (ESRCH), which is no error: errno stays as it was */
	{
		int saved = errno;
		kill(-p->pid, SIGKILL);
		errno = saved;
	}
	r->seconds = now() - p->start;
	got = read(p->errpipe, &e, sizeof e);
	close(p->errpipe);
	if (got == (ssize_t)sizeof e) {
		r->started = 0;
		r->errno_ = e;
		return 0;
	}
	r->started = 1;
	if (WIFEXITED(st)) {
		r->exited = 1;
		r->status = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		r->signaled = 1;
		r->signal = WTERMSIG(st);
	}
	return 0;
}

int proc_run(char *const argv[], const char *cwd, const char *out_path,
             const char *err_path, double limit, struct proc_result *r)
{
	struct proc p;
	if (proc_start(&p, argv, cwd, out_path, err_path, limit) != 0)
		return -1;
	return proc_wait(&p, r);
}

static int executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

char *proc_find_program(const char *name)
{
	const char *path, *p;
	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return executable_file(name) ? xstrdup(name) : NULL;
	path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	for (p = path;;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *c = n ? xasprintf("%.*s/%s", (int)n, p, name)
		            : xasprintf("./%s", name);
		if (executable_file(c))
			return c;
		free(c);
		if (!e)
			break;
		p = e + 1;
	}
	return NULL;
}

/* ---- temporary folders ---- */

const char *tmp_base(void)
{
	const char *t = getenv("TMPDIR");
	return t && t[0] == '/' ? t : "/tmp";
}

char *tmp_make(const char *prefix)
{
	const char *base = tmp_base();
	size_t bl = strlen(base);
	char *dir;
	char pid[32];
	int fd, e;

	while (bl > 1 && base[bl - 1] == '/')
		bl--;
	dir = xasprintf("%.*s/%s.%ld.XXXXXX", (int)bl, base, prefix,
	                (long)getpid());
	if (!mkdtemp(dir)) {
		e = errno;
		free(dir);
		errno = e;
		return NULL;
	}
	{
		char *pf = xasprintf("%s/pid", dir);
		snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
		fd = open(pf, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0 || write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid)) {
			e = fd < 0 ? errno : EIO;
			if (fd >= 0)
				close(fd);
			free(pf);
			rm_tree(dir);
			free(dir);
			errno = e;
			return NULL;
		}
		close(fd);
		free(pf);
	}
	return dir;
}

/* the id written in DIR/pid, or -1 */
static long folder_pid(const char *dir)
{
	char *pf = xasprintf("%s/pid", dir), buf[32];
	int fd = open(pf, O_RDONLY);
	ssize_t n;
	long v = -1;
	free(pf);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n > 0) {
		char *end;
		buf[n] = '\0';
		v = strtol(buf, &end, 10);
		if (end == buf || v <= 0)
			v = -1;
	}
	return v;
}

int tmp_sweep(const char *prefix)
{
	const char *base = tmp_base();
	DIR *d = opendir(base);
	struct dirent *de;
	size_t pl = strlen(prefix);
	int removed = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		char *full;
		long pid;
		if (strncmp(de->d_name, prefix, pl) != 0 || de->d_name[pl] != '.')
			continue;
		full = xasprintf("%s/%s", base, de->d_name);
		if (lstat(full, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid()) {
			free(full);
			continue;
		}
		pid = folder_pid(full);
		if ((pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 &&
		     errno == ESRCH) ||
		    (pid < 0 && time(NULL) - st.st_mtime > 3600)) {
			if (rm_tree(full) == 0)
				removed++;
		}
		free(full);
	}
	closedir(d);
	return removed;
}

int rm_tree(const char *path)
{
	struct stat st;
	int rc = 0, first = 0;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *de;
		/* a folder made read-only by a program it ran still goes */
		chmod(path, 0700);
		d = opendir(path);
		if (d) {
			while ((de = readdir(d)) != NULL) {
				char *c;
				if (strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				c = xasprintf("%s/%s", path, de->d_name);
				if (rm_tree(c) != 0 && !rc) {
					rc = -1;
					first = errno;
				}
				free(c);
			}
			closedir(d);
		}
		if (rmdir(path) != 0 && !rc) {
			rc = -1;
			first = errno;
		}
	} else if (unlink(path) != 0 && !rc) {
		rc = -1;
		first = errno;
	}
	if (rc)
		errno = first;
	return rc;
}
