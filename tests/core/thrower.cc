// SPDX-License-Identifier: MIT
// thrower: a C++ program that waits past a stall deadline (so a dump loads
// the unwinder), then throws and catches exceptions: they must still work
// and still go through libgcc_s (src/core/unwind.c: a preload that needs
// libunwind.so.8 would take _Unwind_RaiseException over).
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 0;
	std::this_thread::sleep_for(std::chrono::milliseconds((long)(secs * 1000)));
	int caught = 0;
	for (int i = 0; i < 100; i++) {
		try {
			throw std::runtime_error("boom");
		} catch (const std::exception &e) {
			caught++;
		}
	}
	std::printf("caught %d\n", caught);
	return caught == 100 ? 0 : 1;
}
