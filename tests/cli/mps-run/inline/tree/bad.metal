#include <metal_stdlib>
// a header the checkout lacks
#include <c10/metal/no_such.h>
kernel void k(device float* out [[buffer(0)]]) {}
