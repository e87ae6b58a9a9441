//! Collects every error of one derive so that a user sees all mistakes in one build.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn error_at(&self, span: Span, msg: impl Display) {
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
    }

    pub fn error_spanned_by(&self, tokens: impl ToTokens, msg: impl Display) {
        self.errors.borrow_mut().push(syn::Error::new_spanned(tokens, msg));
    }

    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// All errors combined into one, or `None`.
    pub fn finish(self) -> Option<syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let mut first = errors.next()?;
        for e in errors {
            first.combine(e);
        }
        Some(first)
    }
}
