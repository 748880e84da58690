float a = .5 + 1e-3 + 0x1.8p1 + 1'0.5;
template \
 [[host_name("x" #T)]] kernel void f<T>(); // 2.0
#include <a1.5.h>
