#pragma once
int helper_fn(int x);
