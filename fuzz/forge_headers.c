/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the header lines of a forge's answer, as libcurl gives them
 * (harness/forge/forge_http.c: forge_response_header, and forge_link_next).
 */
#include "fuzz_target.h"

FUZZ_TARGET("forge_headers")
