/* SPDX-License-Identifier: MIT */
#include "tests/lib/capture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

char *capture_stderr(int (*fn)(int, char **), char **argv, int *status)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), argc = 0;
	char *text = calloc(CAPTURE_MAX, 1);

	assert_non_null(tmp);
	assert_non_null(text);
	while (argv[argc])
		argc++;
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	*status = fn(argc, argv);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	assert_true(fread(text, 1, CAPTURE_MAX - 1, tmp) < CAPTURE_MAX - 1);
	fclose(tmp);
	return text;
}
