#pragma once
int dead_fn(int x);
