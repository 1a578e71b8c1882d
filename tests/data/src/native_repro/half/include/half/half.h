#pragma once
int half_used(int x);
int half_unused(int x);
