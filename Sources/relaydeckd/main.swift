#if canImport(Glibc)
import Glibc
#endif
import Logging

// A closed peer must give EPIPE on write, not kill the process; a file over RLIMIT_FSIZE
// must give EFBIG (the store answers 503), not kill the process.
signal(SIGPIPE, SIG_IGN)
signal(SIGXFSZ, SIG_IGN)

exit(CommandLine.main(Array(CommandLine.arguments.dropFirst())))
