#pragma once
int inclunused_fn(int x);
