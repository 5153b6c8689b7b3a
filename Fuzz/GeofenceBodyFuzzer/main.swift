import FuzzSupport

// The fuzzer's entry point: libFuzzer's driver parses its command line and calls the target per input.
FuzzDriver.run(fuzzGeofenceBody)
