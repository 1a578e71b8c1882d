#pragma once
int core_add(int a, int b);
