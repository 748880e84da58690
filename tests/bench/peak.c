/* peak — the peak resident memory of a command, for `make bench`: runs
 * CMD ARGS... (stdout and stderr to /dev/null), prints its ru_maxrss in
 * KiB.  A small C parent, so that the child's peak is its own: a child
 * that a large parent (python) forks or vforks starts with the parent's
 * pages counted.  Exit 2 when the command cannot run or exits above 1
 * (an error, not findings). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int st, fd;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: peak CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return 2;
	/* the one child waited for: its own peak */
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		return 2;
#ifdef __APPLE__
	printf("%ld\n", (long)(ru.ru_maxrss / 1024)); /* bytes there */
#else
	printf("%ld\n", (long)ru.ru_maxrss);
#endif
	return 0;
}
