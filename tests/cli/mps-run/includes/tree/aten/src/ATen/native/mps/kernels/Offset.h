#pragma once
#include <c10/metal/scale.h>
#define OFFSET 0.5f
