/* SPDX-License-Identifier: MIT */
/*
 * The calibration of the machine's fingerprint (struct wperf_env, core/gate/env.h):
 * how fast this CPU and its caches run a fixed loop, so that a machine of the
 * same model, kernel and CPU count that is slower (another host, a busier one)
 * is told apart and its numbers are not compared with a baseline's.
 */
#ifndef WPERF_CALIBRATE_H
#define WPERF_CALIBRATE_H

/*
 * Nanoseconds per step of the calibration loop: the fastest of 20
 * repetitions, about 190 ms in all, on the CPUs the calling thread may use. 0 when
 * it cannot be measured (no memory, no clock).
 */
double calibrate_machine(void);

#endif /* WPERF_CALIBRATE_H */
