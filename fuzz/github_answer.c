/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a forge's answer as an HTTP body, given to every JSON parser of
 * harness/forge/forge_comments.c and github_comments.c (a page of comments, a comment, an
 * error's message, the event file).
 */
#include "fuzz_target.h"

FUZZ_TARGET("github_answer")
