#include <metal_stdlib>
