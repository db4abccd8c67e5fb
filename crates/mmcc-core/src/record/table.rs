//! Columnar output tables handed to Python (and written as Parquet there).

#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
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
    pub fn str(mut self, name: &str, v: Vec<String>) -> Table {
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
    /// All columns have the same length.
    pub fn is_rectangular(&self) -> bool {
        let n = self.rows();
        self.columns.iter().all(|(_, c)| c.len() == n)
    }
}
