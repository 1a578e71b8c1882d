#pragma once
int extra_scale(int x);
