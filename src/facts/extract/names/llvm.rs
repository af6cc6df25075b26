//! The LLVM C API: struct layouts and the module as text.

use super::Layout;
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::core::*;
use llvm_sys::target::*;
use llvm_sys::LLVMTypeKind;
use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::path::Path;

/// Layouts of the named struct types, and the module's metadata lines.
pub fn layouts_and_text(
    bitcode: &Path,
    names: &[String],
) -> Option<(BTreeMap<String, Layout>, String)> {
    use std::os::unix::ffi::OsStrExt;
    let path = CString::new(bitcode.as_os_str().as_bytes()).ok()?;
    // SAFETY: each LLVM object is created here, used while alive and
    // disposed once: the buffer after parsing (LLVMParseBitcodeInContext2
    // does not take it), the module before its context.
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
        let td = LLVMGetModuleDataLayout(module);
        let mut layouts = BTreeMap::new();
        for name in names {
            let Ok(c) = CString::new(name.as_str()) else {
                continue;
            };
            let ty = LLVMGetTypeByName2(ctx, c.as_ptr());
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
        let text_ptr = LLVMPrintModuleToString(module);
        let metadata: String = CStr::from_ptr(text_ptr)
            .to_string_lossy()
            .lines()
            .filter(|l| l.starts_with('!'))
            .flat_map(|l| [l, "\n"])
            .collect();
        LLVMDisposeMessage(text_ptr);
        LLVMDisposeModule(module);
        LLVMContextDispose(ctx);
        Some((layouts, metadata))
    }
}
