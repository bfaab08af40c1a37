//! The columns of the Predictions, Runs and Soak runs sections, by name
//! (SPEC N2). Each column's exact name and its position are written once,
//! here: a position is the column's index in its enum's `ALL`, so the window,
//! the command line, the documents and the workbook ask for a cell by name
//! and never count.

/// Declares a section's column enum: the variants in the section's order,
/// each with the exact name the course gives it.
macro_rules! section_columns {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $header:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            /// Every column in the section's order; a column's position in
            /// a row is its index here.
            pub const ALL: [$name; [$($name::$variant),+].len()] = [$($name::$variant),+];
            /// Every column's exact name, in the order of [`Self::ALL`].
            pub const HEADERS: [&'static str; [$($header),+].len()] = [$($header),+];

            /// The column's exact name, as the log, the window and the
            /// workbook show it (SPEC N2).
            pub const fn header(self) -> &'static str {
                match self {
                    $($name::$variant => $header,)+
                }
            }
        }
    };
}

section_columns! {
    /// A column of the Predictions section, then the time it was recorded.
    PredictionColumn {
        /// `#`, shown as `P{number}`.
        Number => "#",
        /// `Experiment`.
        Experiment => "Experiment",
        /// `What I predict`.
        Predict => "What I predict",
        /// `Why`, with the quoted original for an amendment.
        Why => "Why",
        /// When the prediction was recorded.
        Recorded => "Recorded",
    }
}

section_columns! {
    /// A column of the Runs section.
    RunColumn {
        /// `#`, marked when the run is discarded.
        Number => "#",
        /// `What`.
        What => "What",
        /// `Command`, quoted as one would type it.
        Command => "Command",
        /// `n (warm-up + timed)`.
        N => "n (warm-up + timed)",
        /// `Median`, rounded, with its unit.
        Median => "Median",
        /// `Dispersion`: the IQR.
        Dispersion => "Dispersion",
        /// `Min / Max`.
        MinMax => "Min / Max",
        /// `Conditions`, in short.
        Conditions => "Conditions",
        /// `Raw file`.
        RawFile => "Raw file",
        /// `Tag`.
        Tag => "Tag",
    }
}

section_columns! {
    /// A column of the Soak runs section (SPEC T5's six numbers among them).
    SoakColumn {
        /// `#`, shown as `S{number}`, marked when the soak is discarded.
        Number => "#",
        /// `Duration` of the protocol.
        Duration => "Duration",
        /// Sampling `Interval` of the protocol.
        Interval => "Interval",
        /// `P`: the opening window's median score.
        Peak => "P",
        /// `t_onset`.
        Onset => "t_onset",
        /// `t_stable`.
        Stable => "t_stable",
        /// `Knee`: t_stable − t_onset (SPEC T11).
        Knee => "Knee",
        /// `S`: the tail window's median score.
        Sustained => "S",
        /// `S/P`.
        Ratio => "S/P",
        /// `Tail IQR`.
        TailIqr => "Tail IQR",
        /// `Conditions`, in short.
        Conditions => "Conditions",
        /// `Raw file`.
        RawFile => "Raw file",
    }
}
