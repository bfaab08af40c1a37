//! [`closed_enum!`](macro@crate::closed_enum): an enum and the list of every one
//! of its variants written from the same lines, so a variant added to the
//! enum is in `ALL` too. Used where code walks every case — the six
//! documents, the audit's checks — and a hand-kept list could miss one.

/// Declares the enum as written and `pub const ALL: [Self; N]`, its
/// variants in declaration order. Variants carry no data.
#[macro_export]
macro_rules! closed_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $name {
            /// Every variant, in declaration order (the same lines as the enum).
            pub const ALL: [Self; [$(stringify!($variant)),+].len()] = [$(Self::$variant),+];
        }
    };
}

#[cfg(test)]
mod tests {
    crate::closed_enum! {
        /// Three colours.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Colour {
            /// First.
            Red,
            Green,
            /// Last.
            Blue,
        }
    }

    #[test]
    fn all_lists_every_variant_in_order() {
        assert_eq!(Colour::ALL, [Colour::Red, Colour::Green, Colour::Blue]);
    }
}
