/* SPDX-License-Identifier: MIT */
/*
 * A bounded blocking queue of numbers (requests, items, tasks): a mutex and
 * two condition variables, the producer/consumer hand-off of fig1, background,
 * pipeline, shortlived and sink, and one slot long, nested's.
 *
 * queue_push blocks while the queue is full and queue_pop while it is empty:
 * that is where the threads wait for each other, so both stay functions of
 * their own (noinline) for the recorded stacks to name them. As in synth.h, a
 * program is warned only about what it uses: the rest is static inline, and
 * these two (which cannot be inline and noinline at once) are marked unused.
 */
#ifndef SYNTH_QUEUE_H
#define SYNTH_QUEUE_H

#include "synth.h"

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	uint64_t *slots;
	size_t cap, head, len;
	bool stop;
};

static inline void queue_init(struct queue *q, size_t cap)
{
	q->slots = synth_calloc(cap, sizeof(*q->slots));
	q->cap = cap;
	q->head = q->len = 0;
	q->stop = false;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
}

/* Blocks while the queue is full. False once the queue is stopped. */
static __attribute__((noinline, unused)) bool queue_push(struct queue *q, uint64_t item)
{
	bool ok;

	pthread_mutex_lock(&q->lock);
	while (q->len == q->cap && !q->stop)
		pthread_cond_wait(&q->not_full, &q->lock);
	ok = !q->stop;
	if (ok) {
		q->slots[(q->head + q->len) % q->cap] = item;
		q->len++;
		pthread_cond_signal(&q->not_empty);
	}
	pthread_mutex_unlock(&q->lock);
	return ok;
}

/* Blocks while the queue is empty. False once the queue is stopped. */
static __attribute__((noinline, unused)) bool queue_pop(struct queue *q, uint64_t *item)
{
	bool ok;

	pthread_mutex_lock(&q->lock);
	while (q->len == 0 && !q->stop)
		pthread_cond_wait(&q->not_empty, &q->lock);
	ok = !q->stop;
	if (ok) {
		*item = q->slots[q->head];
		q->head = (q->head + 1) % q->cap;
		q->len--;
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->lock);
	return ok;
}

/* Wakes every thread blocked on the queue: from then on push and pop fail. */
static inline void queue_stop(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->lock);
}

/* Once no thread uses the queue any more. */
static inline void queue_destroy(struct queue *q)
{
	pthread_cond_destroy(&q->not_full);
	pthread_cond_destroy(&q->not_empty);
	pthread_mutex_destroy(&q->lock);
	free(q->slots);
}

#endif /* SYNTH_QUEUE_H */
