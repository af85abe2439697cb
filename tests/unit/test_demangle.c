/* SPDX-License-Identifier: MIT */
/*
 * wperf_demangle on names as compilers write them: Itanium C++ (g++, clang++),
 * Rust's legacy scheme (an Itanium name with a hash, which must go) and its v0
 * scheme (_R), and names that are no mangled name and must be left alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/analysis/symbolize.h"

/* Demangles name, which must be a mangled name, and returns what it gave. */
static const char *plain(const char *name)
{
	static char buf[256];

	assert_int_equal(wperf_demangle(name, buf, sizeof(buf)), 1);
	return buf;
}

static void test_cplusplus(void **state)
{
	(void)state;
	assert_string_equal(plain("_ZN2ns5Queue4pushEi"), "ns::Queue::push(int)");
	/* const member, reference to a template: the types tell overloads apart */
	assert_string_equal(plain("_ZNK3foo3barERKSt6vectorIiSaIiEE"),
			    "foo::bar(std::vector<int, std::allocator<int> > const&) const");
	/* a part the compiler split off keeps its name */
	assert_string_equal(plain("_ZN2ns5Queue4pushEi.cold"),
			    "ns::Queue::push(int) [clone .cold]");
	assert_string_equal(plain("_ZNSt6thread11_State_implD0Ev"),
			    "std::thread::_State_impl::~_State_impl()");
	/* a versioned symbol of a shared library keeps its version */
	assert_string_equal(plain("_ZNSt6thread6_StateD2Ev@@GLIBCXX_3.4.22"),
			    "std::thread::_State::~_State()@@GLIBCXX_3.4.22");
}

static void test_rust(void **state)
{
	(void)state;
	/* legacy: the hash is the compiler's, not a name people wrote */
	assert_string_equal(plain("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
			    "core::ptr::drop_in_place");
	assert_string_equal(plain("_ZN7mycrate5queue5Queue4push17h9f8e7d6c5b4a3210E"),
			    "mycrate::queue::Queue::push");
	/* v0 */
	assert_string_equal(plain("_RNvNtCs1234_7mycrate5queue4push"), "mycrate::queue::push");
	assert_string_equal(plain("_RNvCs1234_7mycrate4main"), "mycrate::main");
}

static void test_not_mangled(void **state)
{
	char buf[64] = "untouched";

	(void)state;
	assert_int_equal(wperf_demangle("main", buf, sizeof(buf)), 0);
	assert_int_equal(wperf_demangle("__libc_start_call_main", buf, sizeof(buf)), 0);
	assert_int_equal(wperf_demangle("_Zinvalid", buf, sizeof(buf)), 0);
	assert_int_equal(wperf_demangle("_R", buf, sizeof(buf)), 0);
	assert_int_equal(wperf_demangle("", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "untouched");
}

static void test_truncated(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(wperf_demangle("_ZN2ns5Queue4pushEi", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "ns::Que");
	assert_int_equal(wperf_demangle("_ZN2ns5Queue4pushEi", buf, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cplusplus),
	    cmocka_unit_test(test_rust),
	    cmocka_unit_test(test_not_mangled),
	    cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
