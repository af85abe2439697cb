/* SPDX-License-Identifier: MIT */
/*
 * rpc: a client and a server over loopback TCP, one blocking call at a time.
 *
 * Thread client builds a request (make_request: --client-ms of CPU), sends it
 * to thread server over a TCP connection on 127.0.0.1 and blocks in recv()
 * until the response comes back (call_server). Thread server blocks in recv()
 * until a request comes, serves it (handle_request: --server-ms of CPU) and
 * sends the response. Both are threads of this one process, so the analysis
 * target (rpc) covers both ends; the bytes still go through the kernel's TCP
 * stack and the loopback interface.
 *
 * It reproduces the "blocking operation" cause of a cycle (wPerf, OSDI'18,
 * section 3.2.1), with the network as the I/O device of section 3.3: the
 * client waits for the server's response, the server waits for the client's
 * next request, and neither ever works while the other does.
 *
 * What the analyzer sees on loopback: a send on lo delivers the packet in the
 * NET_RX soft IRQ that runs at once on the sender's CPU, and that soft IRQ
 * wakes the receiver. The recorder names the soft IRQ as the waker (not the
 * sending thread it happened to run in), and the analyzer ties the NET soft
 * IRQ to the NIC of the CPU's latest packet: nic:lo. So the client and the
 * server each wait for nic:lo, and nic:lo (idle almost all the time: a packet
 * costs bytes * 8 / 10 Gbit/s) waits for the threads that send on it, the
 * client and the server.
 *
 * Known answer: one knot {rpc/client, rpc/server, nic:lo}. Throughput is about
 * 1 / (client + server + a round trip), about 500 calls/s by default.
 *
 * Cores: the paper's model assumes more cores than threads (section 3.2); the
 * two threads need one CPU between them here, because only one of them runs
 * at a time, so the pattern fits in 2 cores. The knot has no more than one
 * CPU of work in all, which would make a knot of threads alone look like a
 * background knot (section 3.3); nic:lo, an I/O pseudo-thread, keeps it a
 * real one, and rightly: the cycle goes through the network.
 *
 * The fix (--fixed, or --depth N): pipelining. The client keeps --depth
 * requests in flight, so it builds the next requests while the server serves
 * the earlier ones: the two threads work in parallel on the two cores, and
 * the throughput becomes 1 / max(client, server), about twice as much.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "synth.h"

struct rpc {
	/* options */
	int64_t client_ns, server_ns;
	size_t bytes; /* of a request, and of a response */
	long depth;   /* requests in flight: 1 is a blocking call */
	/* state */
	int client_fd, server_fd; /* the two ends of one connection */
	pthread_barrier_t start;
	atomic_uint_fast64_t calls; /* responses the client received */
};

/*
 * Whole messages over a blocking stream socket. False on an error or at the
 * end of the stream, which is how the threads learn to stop: main shuts the
 * sockets down. MSG_NOSIGNAL: a send on a shut down socket is EPIPE, not a
 * SIGPIPE.
 */
static bool send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

static bool recv_all(int fd, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/*
 * The functions the recorded stacks must show: not inlined, not static, so
 * that the compiler keeps them under these names.
 */

/* The client's CPU work per request. */
__attribute__((noinline)) void make_request(char *buf, size_t len, uint64_t seq, int64_t ns)
{
	synth_work_ns(ns);
	memset(buf, 'q', len);
	memcpy(buf, &seq, sizeof(seq) <= len ? sizeof(seq) : len);
}

/* The server's CPU work per request. */
__attribute__((noinline)) void handle_request(char *buf, size_t len, int64_t ns)
{
	synth_work_ns(ns);
	memset(buf + (len > sizeof(uint64_t) ? sizeof(uint64_t) : len), 'r',
	       len > sizeof(uint64_t) ? len - sizeof(uint64_t) : 0);
}

/* Where the client sends a request: it does not block (the socket buffer has room). */
__attribute__((noinline)) bool send_request(int fd, const char *buf, size_t len)
{
	return send_all(fd, buf, len);
}

/* Where the client waits for the server's response, through the network. */
__attribute__((noinline)) bool wait_response(int fd, char *buf, size_t len)
{
	return recv_all(fd, buf, len);
}

/* Where the server waits for the client's next request, through the network. */
__attribute__((noinline)) bool wait_request(int fd, char *buf, size_t len)
{
	return recv_all(fd, buf, len);
}

static void *client_main(void *arg)
{
	struct rpc *app = arg;
	char *req = synth_calloc(1, app->bytes), *resp = synth_calloc(1, app->bytes);
	uint64_t seq = 0;

	synth_thread_begin("client", &app->start);
	/* Fill the pipeline: depth requests in flight (one for a blocking call). */
	for (long i = 0; i < app->depth; i++) {
		make_request(req, app->bytes, seq++, app->client_ns);
		if (!send_request(app->client_fd, req, app->bytes))
			goto out;
	}
	/* Each response lets one more request in. */
	while (wait_response(app->client_fd, resp, app->bytes)) {
		atomic_fetch_add(&app->calls, 1);
		make_request(req, app->bytes, seq++, app->client_ns);
		if (!send_request(app->client_fd, req, app->bytes))
			break;
	}
out:
	free(req);
	free(resp);
	return NULL;
}

static void *server_main(void *arg)
{
	struct rpc *app = arg;
	char *buf = synth_calloc(1, app->bytes);

	synth_thread_begin("server", &app->start);
	while (wait_request(app->server_fd, buf, app->bytes)) {
		handle_request(buf, app->bytes, app->server_ns);
		if (!send_all(app->server_fd, buf, app->bytes))
			break;
	}
	free(buf);
	return NULL;
}

/*
 * Connects a client socket to a listening socket on 127.0.0.1 (a port the
 * kernel picks), before any thread starts: no race between the two ends.
 * TCP_NODELAY on both: with several small requests in flight, Nagle's
 * algorithm and delayed ACKs would otherwise add 40 ms stalls of their own.
 */
static void connect_loopback(int *client_fd, int *server_fd)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(addr);
	int one = 1;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (lfd < 0)
		synth_die(1, "socket: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0)
		synth_die(1, "listening on 127.0.0.1: %s", strerror(errno));
	*client_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*client_fd < 0 || connect(*client_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		synth_die(1, "connecting to 127.0.0.1:%d: %s", ntohs(addr.sin_port),
			  strerror(errno));
	*server_fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (*server_fd < 0)
		synth_die(1, "accept: %s", strerror(errno));
	close(lfd);
	if (setsockopt(*client_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(*server_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		synth_die(1, "TCP_NODELAY: %s", strerror(errno));
}

/* The options' lines of the usage (see synth_usage). */
static const char usage[] =
    "  -d, --duration S     run for S seconds (default 5)\n"
    "      --client-ms MS   the client's CPU work per request (default 1)\n"
    "      --server-ms MS   the server's CPU work per request (default 1)\n"
    "      --bytes N        size of a request and of a response (default 512)\n"
    "      --depth N        requests in flight (default 1: a blocking call)\n"
    "      --fixed          pipelining, 4 requests in flight (--depth 4)\n"
    "  -h, --help\n";

int main(int argc, char **argv)
{
	enum { OPT_CLIENT_MS = 256, OPT_SERVER_MS, OPT_BYTES, OPT_DEPTH, OPT_FIXED };
	static const struct option opts[] = {
	    {"duration", required_argument, NULL, 'd'},
	    {"client-ms", required_argument, NULL, OPT_CLIENT_MS},
	    {"server-ms", required_argument, NULL, OPT_SERVER_MS},
	    {"bytes", required_argument, NULL, OPT_BYTES},
	    {"depth", required_argument, NULL, OPT_DEPTH},
	    {"fixed", no_argument, NULL, OPT_FIXED},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static struct rpc app;
	double duration = 5, client_ms = 1, server_ms = 1;
	pthread_t client, server;
	struct synth_window w;
	int c;

	app.bytes = 512;
	app.depth = 1;
	while ((c = synth_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (c) {
		case 'd':
			duration = synth_opt_double("--duration", optarg, 0.001, 1e6);
			break;
		case OPT_CLIENT_MS:
			client_ms = synth_opt_double("--client-ms", optarg, 0, 1e6);
			break;
		case OPT_SERVER_MS:
			server_ms = synth_opt_double("--server-ms", optarg, 0, 1e6);
			break;
		case OPT_BYTES:
			app.bytes = synth_opt_long("--bytes", optarg, 1, 1 << 20);
			break;
		case OPT_DEPTH:
			app.depth = synth_opt_long("--depth", optarg, 1, 1024);
			break;
		case OPT_FIXED:
			app.depth = 4;
			break;
		}
	}
	app.client_ns = client_ms * SYNTH_NSEC_PER_MSEC;
	app.server_ns = server_ms * SYNTH_NSEC_PER_MSEC;

	connect_loopback(&app.client_fd, &app.server_fd);
	synth_signals_init();
	pthread_barrier_init(&app.start, NULL, 3); /* client, server, main */
	synth_thread_create(&client, client_main, &app);
	synth_thread_create(&server, server_main, &app);

	w = synth_measure(&app.start, duration, &app.calls);
	/* Both threads block in recv() or return from send(): shutting the
	 * connection down ends both with an end of stream or an error. */
	shutdown(app.client_fd, SHUT_RDWR);
	shutdown(app.server_fd, SHUT_RDWR);
	pthread_join(client, NULL);
	pthread_join(server, NULL);
	close(app.client_fd);
	close(app.server_fd);
	synth_say_stopped(w.sig);

	synth_report("calls", w.count, w.elapsed_ns, "calls/s");
	pthread_barrier_destroy(&app.start);
	return 0;
}
