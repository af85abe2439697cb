/* SPDX-License-Identifier: MIT */
/*
 * A program for tests/e2e/test_dwarf_stacks.c, built there without frame
 * pointers (-O2 -fomit-frame-pointer): a reader thread waits on a pipe three
 * calls deep (stage_one -> stage_two -> stage_three -> read) while a writer
 * thread feeds it a byte every millisecond for two seconds. Only the call frame
 * information tells the reader's callers apart from what lies on its stack.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static volatile long total; /* the stages' work, so that no call is a tail call */

__attribute__((noinline)) static long stage_three(void)
{
	char c;
	long n = read(fds[0], &c, 1);

	total += n;
	return n;
}

__attribute__((noinline)) static long stage_two(void)
{
	long n = stage_three();

	total += 2 * n;
	return n;
}

__attribute__((noinline)) static long stage_one(void)
{
	long n = stage_two();

	total += 3 * n;
	return n;
}

static void *reader(void *arg)
{
	(void)arg;
	while (stage_one() > 0)
		;
	return NULL;
}

int main(void)
{
	const struct timespec ms = {0, 1000000};
	pthread_t t;

	if (pipe(fds) || pthread_create(&t, NULL, reader, NULL))
		return 1;
	for (int i = 0; i < 2000; i++) {
		if (write(fds[1], "x", 1) != 1)
			return 1;
		nanosleep(&ms, NULL);
	}
	close(fds[1]);
	pthread_join(t, NULL);
	printf("%ld\n", total);
	return 0;
}
