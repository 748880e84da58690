/* metal_host.h — the Metal host layer: Metal Shading Language code of
 * PyTorch's MPS backend (the headers of c10/metal, the .metal files of
 * aten/src/ATen/native/mps/kernels)
 * compiled as C++17 on the host, so that a functor can be run on many
 * inputs and compared with PyTorch's CPU result (mps-try, issue #20).
 *
 * =====================================================================
 * THE CONTRACT WITH THE TOOL (also README.md; keep the two in step)
 * =====================================================================
 * 1. Sources.  The tool copies, into a private folder TMP that mirrors the
 *    checkout's layout, the .metal file and every header of the checkout
 *    it includes (in practice every .h of c10/metal and of
 *    aten/src/ATen/native/mps/kernels), and applies to every copied
 *    file exactly the rewrites of REWRITES.md (five of them: [[host_name]]
 *    after template, the f of floating literals, `constant` beside
 *    `constexpr` and `const` beside `constant`, swizzles, the operands of
 *    ?:).  The rewrites must reach the headers too (c10/metal/special_math.h
 *    has unsuffixed literals; c10/metal/indexing.h has [[host_name]] in its
 *    macros; c10/metal/common.h has `constant constexpr`; random.h a
 *    swizzle), so the checkout's own folders are never on the include path.
 * 2. Command.  For the translation unit holding the Metal sources:
 *        CXX <the lines of FLAGS> -I<skill>/tools/metal-host
 *            -I<TMP> -I<TMP>/aten/src ... metal_unit.cpp
 *    (-I<TMP>/aten/src because PyTorch's build passes it too,
 *    cmake/Metal.cmake).  FLAGS has one argument per line, the same for
 *    g++ and clang++.  It force-includes this file (-include
 *    metal_host.h): the Metal words below and __METAL__ /
 *    __METAL_VERSION__ (310: PyTorch compiles with -std=metal3.1) must
 *    exist before the first line of c10/metal/common.h, which tests
 *    __METAL__ and uses `constant` before including anything.
 *    <metal_stdlib>, <metal_math> and the other Metal headers then resolve
 *    to this folder.
 * 3. What else the Metal unit may include.  The layer defines kernel,
 *    device, constant, thread, threadgroup as macros, and Metal code looks
 *    names up in the global namespace (`::fabs(x)`, `::erfc(..)` in
 *    c10/metal/igamma.h; plain `abs(x)` after `using namespace metal;`),
 *    where C's declarations would be found instead of Metal's or c10's.
 *    Checked with glibc and libstdc++ (g++ 12, clang++ 14):
 *      safe:    <cstdio> <cstring> <cstdint> <cstddef> <cinttypes>
 *               <cerrno> <cassert> <csignal> <csetjmp> <setjmp.h>
 *               <unistd.h> <fcntl.h> <sys/stat.h> <sys/time.h>
 *               <type_traits> <limits> <utility> <new> <initializer_list>
 *               <array> <vector>
 *      not:     <cstdlib> <stdlib.h> <string> <algorithm> (declare ::abs,
 *               ambiguous with metal::abs for an int), <cmath> <math.h>
 *               (::fabs, ::log1p, ::erfc, ...), <memory> <ctime>
 *               <iostream> <thread> (broken by the macros under g++).
 *    Anything else (strtod, std::string, iostreams) belongs in a second
 *    unit compiled WITHOUT the FLAGS and linked with the first, called
 *    through extern "C" functions on plain types; tests/metal-host
 *    builds such a pair (two_units/).
 * 4. What the harness calls.  The functor itself (`F f; f(a, b)`) or the
 *    kernel templates of c10/metal/indexing.h instantiated for one dtype
 *    (dense path: buffers as pointers, the thread index as the last
 *    argument), one call per element.  Attributes ([[buffer(0)]],
 *    [[thread_position_in_grid]]) are accepted and ignored.
 * 5. Integer division by zero and INT_MIN / -1.  C++ cannot overload
 *    int / int; FLAGS turns division by zero into a trap (SIGILL, or
 *    SIGFPE on x86-64 for INT_MIN / -1) on every host, and
 *    metal_host_guard.h's metal_host::guard(f) runs one element's call and
 *    reports "trapped": the harness marks that element "undefined on the
 *    GPU" instead of comparing it.  Signed overflow wraps (-fwrapv), as
 *    on the GPU.
 *
 * =====================================================================
 * WHAT THE LAYER PROVIDES (each file's header says how)
 * =====================================================================
 *   metal_host_scalar.h  half, bfloat (a rounding after every operation,
 *                        to nearest even, overflow to inf, NaN kept),
 *                        uchar/ushort/uint/ulong, NAN, INFINITY, M_*_F,
 *                        M_*_H, HALF_*, the `h` literal suffix
 *   metal_host_vector.h  boolN ... floatN (N = 2, 3, 4)
 *   metal_host_traits.h  metal:: type traits (half and bfloat are floating
 *                        point) and numeric_limits
 *   metal_host_math.h    metal::, metal::precise::, metal::fast:: math;
 *                        integer, relational, geometric functions; as_type
 *   metal_host_array.h   metal::array<T, N>, array_ref, metal::vec<T, N>
 *   metal_host_simd.h    SIMD-group and quad-group functions, barriers,
 *                        mem_flags; the execution hook
 *                        metal_host::exec_current (null: one lane alone;
 *                        an execution model, issue #26, sets it)
 *   metal_host_atomic.h  metal::atomic<T>, atomic_*_explicit, memory_order
 *   metal_host_guard.h   the per-element trap guard (item 5)
 *
 * =====================================================================
 * WHAT THE LAYER CANNOT PROMISE
 * =====================================================================
 * - Transcendental functions: the host computes them (almost always)
 *   correctly rounded; the GPU's precise variants are within their ULP
 *   bounds (MSL, "Numerical compliance": <= 1 ulp for most float functions, more for
 *   some, and half functions have their own), and fast:: variants are
 *   less accurate still.  Compare such results with a tolerance in ulps.
 * - Contraction: PyTorch compiles with -fno-fast-math, under which the
 *   Metal compiler (clang-based) may still fuse a*b+c into one fma
 *   (-ffp-contract=on); the host does not (FLAGS: -ffp-contract=off).
 *   Float results of such expressions can differ in the last bit.
 * - Subnormals: the host keeps them (IEEE); with -fno-fast-math the GPU is
 *   expected to keep them too, but MSL allows flushing float subnormals
 *   to zero, and this has not been checked on hardware: treat inputs or
 *   results below FLT_MIN (2^-126) as "may differ".
 * - NaN payloads: the host keeps them; the GPU may canonicalise them (its
 *   half -> float conversion does, c10/metal/float8.h notes).  Compare
 *   NaN as "is NaN", never by bits.
 * - Out-of-range float -> integer conversions: undefined in C++ (x86
 *   gives INT_MIN), the GPU saturates; shifts by the width or more: also
 *   undefined, the GPU's result is not specified.
 * - SIMD functions see one lane unless an execution model sets
 *   metal_host::exec_current (metal_host_simd.h).
 * - Constant memory is volatile here (address spaces, below): a struct of
 *   the source's own is not copied whole out of it, a `constant T&`
 *   binds lvalues only.
 * - `cond ? half_value : float_value` is float only through REWRITES.md
 *   rule 5 (see its limits); swizzles exist only through rule 4.
 * - Not provided: textures, simdgroup_matrix, metal::matrix.
 */
#ifndef METAL_HOST_H
#define METAL_HOST_H

#if __cplusplus < 201703L
#error "the Metal host layer needs C++17 (-std=c++17)"
#endif

/* system headers first: the macros below would break them */
#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "metal_host_math.h"
#include "metal_host_array.h"
#include "metal_host_simd.h"
#include "metal_host_atomic.h"

/* ---- address spaces, function qualifiers, attributes (MSL "Address spaces", "Attributes") ---------- */
/* Address spaces.  Metal overloads on them: c10/metal/indexing.h has
 * val_at_offs(constant void*, long) beside val_at_offs(device const void*,
 * long), and a `device void*` argument picks the second.  On the host
 * `constant` is `const volatile` and `device`, `thread`, `threadgroup` are
 * nothing, so the two become `const volatile void*` and `const void*`:
 * distinct overloads, each picked as in Metal (a constant pointer reaches
 * only the first; a device pointer, const or not, prefers the second, the
 * less qualified conversion).  As in Metal, a constant pointer does not
 * convert to a device or thread one.  What it costs, and what the layer
 * does about it:
 *   - reads through a constant pointer or reference are volatile reads;
 *     half, bfloat, the vectors and metal::array are built from volatile
 *     lvalues (constructor templates, which keep them trivially copyable);
 *     a struct of the source's own cannot be copied whole from constant
 *     memory (`S s = params;`: read its members);
 *   - a `constant T&` parameter binds lvalues only (a host caller passes
 *     a variable, as a Metal buffer always is one);
 *   - a volatile variable is no constant expression: REWRITES.md rule 3
 *     removes `constant` beside `constexpr` (`constant constexpr unsigned
 *     max_ndim = 16;` in c10/metal/common.h sizes arrays). */
#define kernel
#define device
#define thread
#define threadgroup
#define constant const volatile
#define METAL_FUNC inline

/* What the Metal compiler predefines, and sources test before they
 * include anything (c10/metal/common.h tests __METAL__ first thing): this
 * file is force-included (FLAGS: -include metal_host.h).  310: PyTorch
 * compiles its kernels with -std=metal3.1. */
#ifndef __METAL__
#define __METAL__ 1
#endif
#ifndef __METAL_VERSION__
#define __METAL_VERSION__ 310
#endif
/* Metal defines it when bfloat is available (Metal 3.1 and later). */
#ifndef __HAVE_BFLOAT__
#define __HAVE_BFLOAT__ 1
#endif

#endif /* METAL_HOST_H */
