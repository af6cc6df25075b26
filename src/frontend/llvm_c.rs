//! The LLVM C API, for what llvm-ir does not do: promoting our own clang
//! output to SSA in this process (instead of an `opt-14` process that
//! parses and writes the module once more) and reading what llvm-ir does
//! not model, the struct layouts and the debug information
//! ([`LlvmView`]).

use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::bit_writer::LLVMWriteBitcodeToFile;
use llvm_sys::core::*;
use llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef};
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
        use std::os::unix::ffi::OsStrExt;
        let path = CString::new(bitcode.as_os_str().as_bytes()).ok()?;
        // SAFETY: the buffer is disposed after parsing
        // (LLVMParseBitcodeInContext2 does not take it); the module and its
        // context are owned by the returned value, or disposed on failure.
        unsafe {
            let mut buf = std::ptr::null_mut();
            let mut msg = std::ptr::null_mut();
            if LLVMCreateMemoryBufferWithContentsOfFile(path.as_ptr(), &mut buf, &mut msg) != 0 {
                if !msg.is_null() {
                    LLVMDisposeMessage(msg);
                }
                return None;
            }
            let ctx = LLVMContextCreate();
            let mut module = std::ptr::null_mut();
            let failed = LLVMParseBitcodeInContext2(ctx, buf, &mut module) != 0;
            LLVMDisposeMemoryBuffer(buf);
            if failed || module.is_null() {
                LLVMContextDispose(ctx);
                return None;
            }
            Some(LlvmModule { ctx, module })
        }
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

impl Drop for LlvmModule {
    fn drop(&mut self) {
        // SAFETY: owned, disposed once: the module before its context.
        unsafe {
            LLVMDisposeModule(self.module);
            LLVMContextDispose(self.ctx);
        }
    }
}
