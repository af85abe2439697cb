// A producer hands numbers to a consumer thread through a pipe: the consumer
// waits in ns::Queue::pop(), woken from ns::Queue::push(int) (tests/e2e/test_demangled.c).
#include <thread>
#include <unistd.h>

namespace ns {
struct Queue {
	int rd, wr;
	__attribute__((noinline)) void push(int v) { (void)!write(wr, &v, sizeof(v)); }
	__attribute__((noinline)) int pop()
	{
		int v = 0;
		(void)!read(rd, &v, sizeof(v));
		return v;
	}
};
} // namespace ns

int main()
{
	int fds[2];
	if (pipe(fds))
		return 1;
	ns::Queue q{fds[0], fds[1]};
	std::thread consumer([&q] {
		while (q.pop() >= 0) {
		}
	});
	for (int i = 0; i < 300; i++) {
		q.push(i);
		usleep(1000);
	}
	q.push(-1);
	consumer.join();
	return 0;
}
