#pragma once
#include "core/core.h"
int shared_a(int x);
int shared_b(int x);
