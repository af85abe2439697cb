// A producer hands numbers to a consumer thread through a pipe: the consumer
// waits in demo::queue::pop, woken from demo::queue::push (tests/e2e/test_demangled.c).
// Free functions: Rust's v0 scheme would write a method as <demo::queue::Queue>::pop.
mod queue {
    extern "C" {
        fn read(fd: i32, buf: *mut u8, n: usize) -> isize;
        fn write(fd: i32, buf: *const u8, n: usize) -> isize;
    }
    pub struct Queue {
        pub rd: i32,
        pub wr: i32,
    }
    #[inline(never)]
    pub fn push(q: &Queue, v: i32) {
        let b = v.to_ne_bytes();
        unsafe { write(q.wr, b.as_ptr(), 4) };
    }
    #[inline(never)]
    pub fn pop(q: &Queue) -> i32 {
        let mut b = [0u8; 4];
        unsafe { read(q.rd, b.as_mut_ptr(), 4) };
        i32::from_ne_bytes(b)
    }
}

extern "C" {
    fn pipe(fds: *mut i32) -> i32;
}

fn main() {
    let mut fds = [0i32; 2];
    if unsafe { pipe(fds.as_mut_ptr()) } != 0 {
        std::process::exit(1);
    }
    let q = std::sync::Arc::new(queue::Queue { rd: fds[0], wr: fds[1] });
    let c = q.clone();
    let consumer = std::thread::spawn(move || while queue::pop(&c) >= 0 {});
    for i in 0..300 {
        queue::push(&q, i);
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    queue::push(&q, -1);
    consumer.join().unwrap();
}
