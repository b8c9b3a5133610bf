// SPDX-License-Identifier: MIT
/*
 * self.c: the library's own folder, from /proc/self/maps read a chunk at a
 * time into a buffer on the caller's stack (two threads may ask at once:
 * the watchdog for the brief, a dumping thread for the unwinder). Never
 * dladdr, never stdio, never malloc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "brief.h"
#include "real.h"
#include "self.h"

/* Any address inside the library will do: this function's own. */
bool ht_self_folder(char *out, size_t cap)
{
	char buf[4096];
	size_t have = 0;
	bool found = false;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		size_t last = have;
		while (last > 0 && buf[last - 1] != '\n')
			last--;
		if (last == 0) {	/* a line longer than the buffer: skip it */
			have = 0;
			continue;
		}
		if (ht_brief_lib_folder(buf, last, (unsigned long)(uintptr_t)&ht_self_folder, out,
					cap)) {
			found = true;
			break;
		}
		memmove(buf, buf + last, have - last);
		have -= last;
	}
	ht_real.close(fd);
	return found;
}
