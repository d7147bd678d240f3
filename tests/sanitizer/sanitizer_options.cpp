// Defaults of the sanitizer runtimes for every program of a MESHPLAN_SANITIZE build, so that the
// meshplan binary started by a CLI test behaves like the test program itself. ASAN_OPTIONS,
// UBSAN_OPTIONS and LSAN_OPTIONS in the environment still win.
extern "C" {

const char* __asan_default_options() {
  return "halt_on_error=1:detect_leaks=1";
}

const char* __ubsan_default_options() {
  return "halt_on_error=1:print_stacktrace=1";
}

const char* __lsan_default_options() {
  return "suppressions=" MESHPLAN_LSAN_SUPPRESSIONS;
}

}  // extern "C"
