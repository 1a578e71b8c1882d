#pragma once

// A hook the server calls only if some library provides it (weak reference).
extern "C" void slim_request_hook(int request_id) __attribute__((weak));
