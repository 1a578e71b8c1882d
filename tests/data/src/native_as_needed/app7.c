/* Calls host, whose host_run finds hook_fn by name; nothing of hooks is called here. */
int host_run(void);
int main(void) { return host_run(); }
