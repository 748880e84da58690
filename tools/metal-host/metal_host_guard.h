/* metal_host_guard.h — run one element's call and report whether it
 * trapped (contract item 5 of metal_host.h).
 *
 * For the harness's Metal translation unit (metal_host.h, contract item
 * 3).  The system headers it needs are read with the address-space macros
 * set aside.
 *
 *   int metal_host::guard(F &&f)
 *     Calls f() once.  Returns 0 when it returned normally, else the
 *     signal that interrupted it: SIGILL (integer division or remainder by
 *     zero, which FLAGS turns into a trap on every host), SIGFPE (INT_MIN /
 *     -1 on x86-64; the FLAGS trap does not cover it on arm64, where the
 *     quotient wraps as on the GPU), or SIGTRAP (the same trap on some
 *     arm64 systems).  The harness records such an element as "undefined
 *     on the GPU" and does not compare it.  Whatever f wrote before the
 *     signal stays written.
 *     The handlers are installed on the first call (sigaction, SA_NODEFER
 *     is not used: sigsetjmp(.., 1) restores the signal mask) and left in
 *     place; not thread-safe (one harness thread).
 */
#ifndef METAL_HOST_GUARD_H
#define METAL_HOST_GUARD_H

#pragma push_macro("kernel")
#pragma push_macro("device")
#pragma push_macro("thread")
#pragma push_macro("threadgroup")
#pragma push_macro("constant")
#undef kernel
#undef device
#undef thread
#undef threadgroup
#undef constant
#include <csetjmp>
#include <csignal>
#pragma pop_macro("kernel")
#pragma pop_macro("device")
#pragma pop_macro("thread")
#pragma pop_macro("threadgroup")
#pragma pop_macro("constant")

namespace metal_host {
namespace guard_detail {
inline sigjmp_buf &env() {
	static sigjmp_buf e;
	return e;
}
inline void on_signal(int sig) { siglongjmp(env(), sig); }
inline void install() {
	static bool done = false;
	if (done)
		return;
	struct sigaction sa;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	sa.sa_handler = on_signal;
	sigaction(SIGILL, &sa, nullptr);
	sigaction(SIGFPE, &sa, nullptr);
	sigaction(SIGTRAP, &sa, nullptr);
	done = true;
}
} // namespace guard_detail

template <class F>
int guard(F &&f) {
	guard_detail::install();
	const int sig = sigsetjmp(guard_detail::env(), 1);
	if (sig != 0)
		return sig;
	f();
	return 0;
}
} // namespace metal_host

#endif /* METAL_HOST_GUARD_H */
