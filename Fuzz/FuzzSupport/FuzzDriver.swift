#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts libFuzzer (linked by `-sanitize=fuzzer`) with a Swift function as the target.
///
/// libFuzzer normally supplies `main` and calls a C symbol `LLVMFuzzerTestOneInput`; a Swift executable has
/// its own `main`, so it hands the target to libFuzzer's documented `LLVMFuzzerRunDriver` instead.
public enum FuzzDriver {
    /// Runs libFuzzer with this process's arguments and exits with its status.
    public static func run(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, target))
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
