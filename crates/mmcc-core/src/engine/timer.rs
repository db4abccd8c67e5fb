use crate::time::Time;

/// A timer with lazy cancellation.
///
/// The owner keeps the deadline here and at most one wake-up event in the scheduler, tagged with
/// the generation returned by [`LazyTimer::arm`]. Moving the deadline later needs no new event:
/// when the early wake-up arrives, [`LazyTimer::fire`] says to sleep again until the new deadline.
/// Moving it earlier, or arming with no wake-up pending, asks the caller to schedule one.
#[derive(Clone, Debug, Default)]
pub struct LazyTimer {
    deadline: Option<Time>,
    /// (time, generation) of the wake-up event currently in the scheduler, if any.
    pending: Option<(Time, u32)>,
    gen: u32,
}

/// What the owner must do after a wake-up.
#[derive(Debug, PartialEq, Eq)]
pub enum Fired {
    /// A stale or cancelled wake-up: do nothing.
    Ignore,
    /// The deadline moved later: schedule a wake-up at this time with this generation.
    Reschedule(Time, u32),
    /// The deadline is reached: run the timer's action.
    Expired,
}

impl LazyTimer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }
    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Set the deadline. Returns `Some((time, gen))` when the caller must schedule a wake-up.
    #[must_use]
    pub fn arm(&mut self, deadline: Time) -> Option<(Time, u32)> {
        self.deadline = Some(deadline);
        match self.pending {
            Some((t, _)) if t <= deadline => None,
            _ => {
                self.gen = self.gen.wrapping_add(1);
                self.pending = Some((deadline, self.gen));
                Some((deadline, self.gen))
            }
        }
    }

    /// Cancel: the pending wake-up, if any, will be ignored.
    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// Handle a wake-up with generation `gen` at time `now`.
    #[must_use]
    pub fn fire(&mut self, now: Time, gen: u32) -> Fired {
        match self.pending {
            Some((_, g)) if g == gen => {}
            _ => return Fired::Ignore,
        }
        self.pending = None;
        match self.deadline {
            None => Fired::Ignore,
            Some(d) if d > now => {
                self.gen = self.gen.wrapping_add(1);
                self.pending = Some((d, self.gen));
                Fired::Reschedule(d, self.gen)
            }
            Some(_) => {
                self.deadline = None;
                Fired::Expired
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rearming_later_needs_no_new_event() {
        let mut t = LazyTimer::new();
        let (w, g) = t.arm(Time(100)).expect("first arm schedules");
        assert_eq!(w, Time(100));
        assert_eq!(t.arm(Time(150)), None);
        assert_eq!(t.fire(Time(100), g), Fired::Reschedule(Time(150), g + 1));
        assert_eq!(t.fire(Time(150), g + 1), Fired::Expired);
        assert!(!t.is_armed());
    }

    #[test]
    fn rearming_earlier_schedules_and_stale_wakeup_is_ignored() {
        let mut t = LazyTimer::new();
        let (_, g1) = t.arm(Time(100)).unwrap();
        let (w2, g2) = t.arm(Time(50)).expect("earlier deadline needs a wake-up");
        assert_eq!(w2, Time(50));
        assert_eq!(t.fire(Time(50), g2), Fired::Expired);
        assert_eq!(t.fire(Time(100), g1), Fired::Ignore);
    }

    #[test]
    fn cancelled_timer_ignores_its_wakeup() {
        let mut t = LazyTimer::new();
        let (_, g) = t.arm(Time(10)).unwrap();
        t.cancel();
        assert_eq!(t.fire(Time(10), g), Fired::Ignore);
        // and can be armed again
        assert!(t.arm(Time(20)).is_some());
    }
}
