/* SPDX-License-Identifier: MIT */
/*
 * The version of wperf-bench, in one place: --version, a trace's META, the
 * environment of a results folder, the HTTP User-Agent, and (read by the
 * Makefile) the pkg-config file and the package.
 */
#ifndef WPERF_VERSION_H
#define WPERF_VERSION_H

#define WPERF_VERSION "0.1.0"

#endif /* WPERF_VERSION_H */
