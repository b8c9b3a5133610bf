// SPDX-License-Identifier: MIT
/*
 * closer: closes every descriptor from 3 up (as daemonising code and some
 * launchers do), or dup2s onto them, then waits in wait_after_close: the
 * library must reopen its trace file and still write the stall dump there.
 * With "raw" it closes them with the close_range system call, which no
 * hook sees, and opens a file of its own in the freed numbers.
 *   closer close|dup2|raw SECONDS
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) void wait_after_close(int secs)
{
	for (int i = 0; i < secs * 10; i++)
		poll(NULL, 0, 100);
}

int main(int argc, char **argv)
{
	int secs = argc > 2 ? atoi(argv[2]) : 3;
	if (argc > 1 && strcmp(argv[1], "dup2") == 0) {
		int null = open("/dev/null", O_WRONLY);
		for (int fd = 3; fd < 4096; fd++)
			if (fd != null && fcntl(fd, F_GETFD) != -1)
				dup2(null, fd);
	} else if (argc > 1 && strcmp(argv[1], "raw") == 0) {
		syscall(SYS_close_range, 3, ~0u, 0);
		/* Take the numbers back, as an application's own files would. */
		for (int i = 0; i < 1000; i++)
			if (open("/dev/null", O_WRONLY) < 0)
				break;
	} else {
		for (int fd = 3; fd < 4096; fd++)
			close(fd);
	}
	wait_after_close(secs);
	return 0;
}
