//! Columnar output tables handed to Python (and written as Parquet there).

use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    /// Strings as codes into their distinct values (a flow state or an event kind repeats over
    /// millions of rows: 4 bytes a row instead of a `String` each).
    Str(Labels),
}

/// A string column: row `i` is `labels[codes[i]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    pub labels: Vec<String>,
    pub codes: Vec<u32>,
}

impl Labels {
    /// Encode `values`; the labels come out sorted.
    pub fn encode<S: AsRef<str>>(values: &[S]) -> Labels {
        let mut index: BTreeMap<&str, u32> = values.iter().map(|v| (v.as_ref(), 0)).collect();
        for (i, code) in index.values_mut().enumerate() {
            *code = i as u32;
        }
        let codes = values.iter().map(|v| index[v.as_ref()]).collect();
        Labels { labels: index.into_keys().map(str::to_string).collect(), codes }
    }

    pub fn get(&self, row: usize) -> &str {
        &self.labels[self.codes[row] as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.codes.iter().map(|&c| self.labels[c as usize].as_str())
    }
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named table: columns of equal length, names carrying their unit suffix.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new(name: &str) -> Table {
        Table { name: name.to_string(), columns: Vec::new() }
    }
    pub fn f64(mut self, name: &str, v: Vec<f64>) -> Table {
        self.columns.push((name.to_string(), Column::F64(v)));
        self
    }
    pub fn i64(mut self, name: &str, v: Vec<i64>) -> Table {
        self.columns.push((name.to_string(), Column::I64(v)));
        self
    }
    pub fn str(self, name: &str, v: Vec<String>) -> Table {
        self.labels(name, Labels::encode(&v))
    }
    /// A string column already held as codes into its labels.
    pub fn labels(mut self, name: &str, v: Labels) -> Table {
        debug_assert!(v.codes.iter().all(|&c| (c as usize) < v.labels.len()));
        self.columns.push((name.to_string(), Column::Str(v)));
        self
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn f64_col(&self, name: &str) -> Option<&[f64]> {
        match self.column(name)? {
            Column::F64(v) => Some(v),
            _ => None,
        }
    }
    pub fn i64_col(&self, name: &str) -> Option<&[i64]> {
        match self.column(name)? {
            Column::I64(v) => Some(v),
            _ => None,
        }
    }
    pub fn str_col(&self, name: &str) -> Option<&Labels> {
        match self.column(name)? {
            Column::Str(v) => Some(v),
            _ => None,
        }
    }
    /// All columns have the same length.
    pub fn is_rectangular(&self) -> bool {
        let n = self.rows();
        self.columns.iter().all(|(_, c)| c.len() == n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_with_sorted_distinct_values() {
        let v = ["open", "loss", "open", "recovery", "loss"];
        let l = Labels::encode(&v);
        assert_eq!(l.labels, ["loss", "open", "recovery"]);
        assert_eq!(l.codes, [1, 0, 1, 2, 0]);
        assert_eq!(l.iter().collect::<Vec<_>>(), v);
        assert_eq!(l.get(3), "recovery");
        assert!(Labels::encode::<&str>(&[]).labels.is_empty());
    }
}
