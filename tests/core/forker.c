// SPDX-License-Identifier: MIT
/*
 * forker: fork, vfork+exec, posix_spawn and _Fork in one traced process;
 * each child exits with a known status. None may crash or hang, the forked
 * child gets its own trace file marked with its parent's pid.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int status_of(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(void)
{
	pid_t p = fork();
	if (p == 0) {
		usleep(100000);
		_exit(7);
	}
	printf("fork child %d\n", status_of(p));

	p = vfork();
	if (p == 0) {
		execl("/bin/sh", "sh", "-c", "exit 8", (char *)NULL);
		_exit(127);
	}
	printf("vfork child %d\n", status_of(p));

	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"exit 9", NULL };
	if (posix_spawn(&p, "/bin/sh", NULL, NULL, argv, environ) == 0)
		printf("spawn child %d\n", status_of(p));

	p = _Fork();
	if (p == 0)
		_exit(10);
	printf("_Fork child %d\n", status_of(p));
	return 0;
}
