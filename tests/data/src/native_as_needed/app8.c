/* Calls loader, which dlopens the plugin by name; nothing of the plugin is called here. */
int loader_run(void);
int main(void) { return loader_run(); }
