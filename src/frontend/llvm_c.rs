//! The LLVM C API, for what llvm-ir does not do: promoting our own clang
//! output to SSA in this process (instead of an `opt-14` process that parses and writes
//! the module once more) and reading what llvm-ir does not model, the
//! struct layouts and the debug information ([`LlvmView`]).

use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::bit_writer::LLVMWriteBitcodeToFile;
use llvm_sys::core::*;
use llvm_sys::prelude::{LLVMContextRef, LLVMDiagnosticInfoRef, LLVMModuleRef};
use llvm_sys::target::*;
use llvm_sys::transforms::util::LLVMAddPromoteMemoryToRegisterPass;
use llvm_sys::LLVMTypeKind;
use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::path::Path;

/// What LLVM says about a module beyond llvm-ir's model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LlvmView {
    /// Each named struct type LLVM laid out, by IR name (`struct.pool`).
    pub layouts: BTreeMap<String, Layout>,
    /// The module's metadata lines (`!7 = distinct !DICompositeType(...)`).
    pub metadata: String,
}

/// What LLVM says about one IR struct type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Byte offset of each element.
    pub offsets: Vec<u64>,
    /// Size in bits of each element.
    pub bits: Vec<u64>,
    /// The IR struct name of each element that is a named struct.
    pub elem_struct: Vec<Option<String>>,
    /// ABI size in bytes.
    pub size: u64,
}

/// A module LLVM parsed, alive until dropped (its context with it).
pub struct LlvmModule {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
}

impl LlvmModule {
    /// Parse a bitcode file; `None` when the file cannot be read or is not
    /// bitcode LLVM 14 reads.
    pub fn parse(bitcode: &Path) -> Option<LlvmModule> {
        let buf = read_buffer(bitcode)?;
        let ctx = quiet_context();
        let mut module = std::ptr::null_mut();
        // SAFETY: the buffer is disposed after parsing
        // (LLVMParseBitcodeInContext2 does not take it); the module and its
        // context are owned by the returned value, or disposed on failure.
        unsafe {
            let failed = LLVMParseBitcodeInContext2(ctx, buf, &mut module) != 0;
            LLVMDisposeMemoryBuffer(buf);
            LlvmModule::owning(ctx, module, failed)
        }
    }

    /// Own a parsed module and its context, or dispose of the context when
    /// the parse failed.
    ///
    /// # Safety
    /// `module`, when the parse did not fail, belongs to `ctx`.
    unsafe fn owning(ctx: LLVMContextRef, module: LLVMModuleRef, failed: bool) -> Option<Self> {
        if failed || module.is_null() {
            LLVMContextDispose(ctx);
            return None;
        }
        Some(LlvmModule { ctx, module })
    }

    /// Promote the allocas of every function to SSA values: what `opt-14
    /// -passes=mem2reg` does (the same PromoteMemToReg, through the legacy
    /// pass manager the C API offers).
    pub fn promote_to_ssa(&mut self) {
        // SAFETY: the pass manager is created, run on our module and disposed.
        unsafe {
            let pm = LLVMCreatePassManager();
            LLVMAddPromoteMemoryToRegisterPass(pm);
            LLVMRunPassManager(pm, self.module);
            LLVMDisposePassManager(pm);
        }
    }

    /// Write the module as bitcode; false when the file cannot be written.
    pub fn write(&self, out: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let Ok(path) = CString::new(out.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: the module is alive; the path is a NUL-terminated string.
        unsafe { LLVMWriteBitcodeToFile(self.module, path.as_ptr()) == 0 }
    }

    /// The layouts of the named struct types `names` and the module's
    /// metadata lines.
    pub fn view(&self, names: &[String]) -> LlvmView {
        // SAFETY: every type and string read here belongs to the live
        // module and context; the printed text is disposed after copying.
        unsafe {
            let td = LLVMGetModuleDataLayout(self.module);
            let mut layouts = BTreeMap::new();
            for name in names {
                let Ok(c) = CString::new(name.as_str()) else {
                    continue;
                };
                let ty = LLVMGetTypeByName2(self.ctx, c.as_ptr());
                if ty.is_null() || LLVMIsOpaqueStruct(ty) != 0 {
                    continue;
                }
                let n = LLVMCountStructElementTypes(ty);
                let mut l = Layout {
                    size: LLVMABISizeOfType(td, ty),
                    ..Layout::default()
                };
                for k in 0..n {
                    let e = LLVMStructGetTypeAtIndex(ty, k);
                    l.offsets.push(LLVMOffsetOfElement(td, ty, k));
                    l.bits.push(LLVMSizeOfTypeInBits(td, e));
                    let sname = if LLVMGetTypeKind(e) == LLVMTypeKind::LLVMStructTypeKind {
                        let p = LLVMGetStructName(e);
                        (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
                    } else {
                        None
                    };
                    l.elem_struct.push(sname);
                }
                layouts.insert(name.clone(), l);
            }
            let text_ptr = LLVMPrintModuleToString(self.module);
            let metadata: String = CStr::from_ptr(text_ptr)
                .to_string_lossy()
                .lines()
                .filter(|l| l.starts_with('!'))
                .flat_map(|l| [l, "\n"])
                .collect();
            LLVMDisposeMessage(text_ptr);
            LlvmView { layouts, metadata }
        }
    }
}

/// Read a file into an LLVM memory buffer.
fn read_buffer(path: &Path) -> Option<llvm_sys::prelude::LLVMMemoryBufferRef> {
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut buf = std::ptr::null_mut();
    let mut msg = std::ptr::null_mut();
    // SAFETY: the path is NUL-terminated; the message, when set, is disposed.
    let failed =
        unsafe { LLVMCreateMemoryBufferWithContentsOfFile(path.as_ptr(), &mut buf, &mut msg) != 0 };
    // SAFETY: set by LLVM or still null.
    unsafe { dispose_message(msg) };
    (!failed).then_some(buf)
}

/// A context whose diagnostics are dropped. Without a handler LLVM prints
/// them, and on an error (a bitcode reader's) exits the process; every
/// call here reports failure through its result instead.
fn quiet_context() -> LLVMContextRef {
    extern "C" fn ignore(_: LLVMDiagnosticInfoRef, _: *mut std::ffi::c_void) {}
    // SAFETY: a fresh context; the handler keeps no state.
    unsafe {
        let ctx = LLVMContextCreate();
        LLVMContextSetDiagnosticHandler(ctx, Some(ignore), std::ptr::null_mut());
        ctx
    }
}

/// # Safety
/// `msg` is null or a message LLVM allocated.
unsafe fn dispose_message(msg: *mut std::ffi::c_char) {
    if !msg.is_null() {
        LLVMDisposeMessage(msg);
    }
}

impl Drop for LlvmModule {
    fn drop(&mut self) {
        // SAFETY: owned, disposed once: the module before its context.
        unsafe {
            LLVMDisposeModule(self.module);
            LLVMContextDispose(self.ctx);
        }
        // LLVM allocates through the C heap, which keeps what it freed:
        // give it back, or the peaks of the analysis that follows stand on
        // it (50 KLoC pair: 90 MB resident after loading).
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only releases free memory of the C heap.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}
