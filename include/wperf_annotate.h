/* SPDX-License-Identifier: MIT */
/*
 * wperf_annotate.h - annotate busy waiting and false wakeups for wperf-bench.
 *
 * The recorder sees waiting that goes through the kernel (futexes, I/O,
 * sleeps), but two things only the application knows about (wPerf, OSDI'18,
 * Sections 3.3 and 4.1):
 *
 *  - Busy waiting. A thread spinning on a lock is running as far as the
 *    kernel can tell, yet logically it is blocked, waiting for the thread
 *    that holds the lock. Mark the spin so that the time is counted as a
 *    wait on the holder:
 *
 *	WPERF_BEFORE_SPIN(lock)   right before the thread starts spinning on
 *	                          lock (typically only on the contended path,
 *	                          after a first try failed);
 *	WPERF_AFTER_SPIN(lock)    right after the spin ends, once the thread
 *	                          holds lock;
 *	WPERF_SPIN_RELEASE(lock)  right before any thread releases lock, so the
 *	                          analyzer knows who ended the spinner's wait.
 *
 *    lock is the lock's address; it is passed as a 64-bit integer and is
 *    only used to pair the three events of the same lock.
 *
 *	if (!try_lock(&l)) {
 *		WPERF_BEFORE_SPIN(&l);
 *		while (!try_lock(&l))
 *			cpu_relax();
 *		WPERF_AFTER_SPIN(&l);
 *	}
 *	...critical section...
 *	WPERF_SPIN_RELEASE(&l);
 *	unlock(&l);
 *
 *  - False wakeups. A thread woken up (say by a broadcast) that finds its
 *    condition to continue still false and goes back to sleep did not really
 *    wait for its waker; the analyzer drops the wakeup/wait pair around the
 *    annotation. Place WPERF_FALSE_WAKEUP() right after the wakeup, inside the
 *    check that found the condition false, before waiting again:
 *
 *	while (!cond) {
 *		pthread_cond_wait(&cv, &m);
 *		if (!cond)
 *			WPERF_FALSE_WAKEUP();
 *	}
 *
 * Only the frequent spins and false wakeups are worth annotating: find them
 * with an on-CPU profile first.
 *
 * The macros are USDT probes (provider "wperf"; probes before_spin,
 * after_spin and spin_release with one argument, false_wakeup with none) made
 * with <sys/sdt.h> (Debian: systemtap-sdt-dev). They have no semaphores, so
 * they are always in place: a single nop when nothing traces them, and no
 * system call when traced. They need no library at link time.
 *
 * Define WPERF_NO_ANNOTATE before including this header to compile them to
 * nothing (the lock argument is then not evaluated).
 */
#ifndef WPERF_ANNOTATE_H
#define WPERF_ANNOTATE_H

#ifdef WPERF_NO_ANNOTATE

/* sizeof keeps the argument "used" without evaluating it. */
#define WPERF_BEFORE_SPIN(lock)	 ((void)sizeof(lock))
#define WPERF_AFTER_SPIN(lock)	 ((void)sizeof(lock))
#define WPERF_SPIN_RELEASE(lock) ((void)sizeof(lock))
#define WPERF_FALSE_WAKEUP()	 ((void)0)

#else /* !WPERF_NO_ANNOTATE */

/*
 * With semaphores, <sys/sdt.h> would make every probe reference a
 * PROVIDER_NAME_semaphore variable that nobody defines here: say so clearly
 * rather than failing at link time. Annotate in another file instead.
 */
#ifdef _SDT_HAS_SEMAPHORES
#error "wperf_annotate.h: the wperf probes have no semaphores (_SDT_HAS_SEMAPHORES)"
#endif

#include <stdint.h>
#include <sys/sdt.h>

/* The address as an unsigned 64-bit integer: the probe argument is "8@...". */
#define WPERF_LOCK_ARG_(lock) ((unsigned long long)(uintptr_t)(lock))

#define WPERF_BEFORE_SPIN(lock)	 STAP_PROBE1(wperf, before_spin, WPERF_LOCK_ARG_(lock))
#define WPERF_AFTER_SPIN(lock)	 STAP_PROBE1(wperf, after_spin, WPERF_LOCK_ARG_(lock))
#define WPERF_SPIN_RELEASE(lock) STAP_PROBE1(wperf, spin_release, WPERF_LOCK_ARG_(lock))
#define WPERF_FALSE_WAKEUP()	 STAP_PROBE(wperf, false_wakeup)

#endif /* WPERF_NO_ANNOTATE */

#endif /* WPERF_ANNOTATE_H */
