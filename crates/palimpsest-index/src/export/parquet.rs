//! A table as columns of a few types, and writing it as one Parquet file (zstd, one row
//! group per 64k rows) with the `arrow` and `parquet` crates. Every column is nullable and
//! keeps its type whatever the rows are, so the files of many exports concatenate; times are
//! `timestamp[ms, UTC]`, which DuckDB reads as `TIMESTAMPTZ` and Spark as `timestamp`. What
//! goes in the columns is `super`'s.

use std::path::Path;
use std::sync::Arc;

use arrow_array::types::Int64Type;
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result};

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Col {
    /// UTF-8 text.
    Str(Vec<Option<String>>),
    /// 64-bit integers.
    I64(Vec<Option<i64>>),
    /// 64-bit floats.
    F64(Vec<Option<f64>>),
    /// Booleans.
    Bool(Vec<Option<bool>>),
    /// Unix milliseconds, written as a UTC timestamp.
    Time(Vec<Option<i64>>),
    /// Lists of 64-bit integers (message indices).
    I64List(Vec<Vec<i64>>),
}

impl Col {
    fn len(&self) -> usize {
        match self {
            Col::Str(v) => v.len(),
            Col::I64(v) | Col::Time(v) => v.len(),
            Col::F64(v) => v.len(),
            Col::Bool(v) => v.len(),
            Col::I64List(v) => v.len(),
        }
    }

    fn data_type(&self) -> DataType {
        match self {
            Col::Str(_) => DataType::Utf8,
            Col::I64(_) => DataType::Int64,
            Col::F64(_) => DataType::Float64,
            Col::Bool(_) => DataType::Boolean,
            Col::Time(_) => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            Col::I64List(_) => DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
        }
    }

    fn array(&self) -> ArrayRef {
        match self {
            Col::Str(v) => Arc::new(v.iter().map(Option::as_deref).collect::<StringArray>()),
            Col::I64(v) => Arc::new(v.iter().copied().collect::<Int64Array>()),
            Col::F64(v) => Arc::new(v.iter().copied().collect::<Float64Array>()),
            Col::Bool(v) => Arc::new(v.iter().copied().collect::<BooleanArray>()),
            Col::Time(v) => Arc::new(
                v.iter()
                    .copied()
                    .collect::<TimestampMillisecondArray>()
                    .with_timezone("UTC"),
            ),
            Col::I64List(v) => Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(
                v.iter().map(|l| Some(l.iter().map(|x| Some(*x)))),
            )),
        }
    }
}

/// A named table of named columns, filled a row at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The file's stem: `sessions`, `messages`, …
    pub name: &'static str,
    /// The columns, in file order.
    pub columns: Vec<(&'static str, Col)>,
    rows: usize,
}

impl Table {
    /// An empty table of these columns.
    pub fn new(name: &'static str, columns: Vec<(&'static str, Col)>) -> Self {
        Table {
            name,
            columns,
            rows: 0,
        }
    }

    /// Rows ended so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Col> {
        self.columns
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c)
    }

    fn col(&mut self, name: &str) -> &mut Col {
        match self.columns.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => c,
            None => panic!("table {} has no column {name}", self.name),
        }
    }

    /// Set text column `name` of the row being filled.
    pub fn str(&mut self, name: &str, v: Option<&str>) {
        match self.col(name) {
            Col::Str(c) => c.push(v.map(str::to_owned)),
            other => panic!("{name} is {:?}, not text", other.data_type()),
        }
    }

    /// Set integer column `name`.
    pub fn int(&mut self, name: &str, v: Option<i64>) {
        match self.col(name) {
            Col::I64(c) => c.push(v),
            other => panic!("{name} is {:?}, not an integer", other.data_type()),
        }
    }

    /// Set float column `name`.
    pub fn float(&mut self, name: &str, v: Option<f64>) {
        match self.col(name) {
            Col::F64(c) => c.push(v),
            other => panic!("{name} is {:?}, not a float", other.data_type()),
        }
    }

    /// Set boolean column `name`.
    pub fn bool(&mut self, name: &str, v: Option<bool>) {
        match self.col(name) {
            Col::Bool(c) => c.push(v),
            other => panic!("{name} is {:?}, not a boolean", other.data_type()),
        }
    }

    /// Set time column `name` (Unix ms).
    pub fn time(&mut self, name: &str, v: Option<i64>) {
        match self.col(name) {
            Col::Time(c) => c.push(v),
            other => panic!("{name} is {:?}, not a time", other.data_type()),
        }
    }

    /// Set list column `name`.
    pub fn list(&mut self, name: &str, v: Vec<i64>) {
        match self.col(name) {
            Col::I64List(c) => c.push(v),
            other => panic!("{name} is {:?}, not a list", other.data_type()),
        }
    }

    /// End the row: every column must have been set once.
    pub fn end_row(&mut self) {
        self.rows += 1;
        for (n, c) in &self.columns {
            assert_eq!(c.len(), self.rows, "column {n} of {} not set", self.name);
        }
    }

    /// The Arrow schema the file is written with.
    pub fn schema(&self) -> Schema {
        Schema::new(
            self.columns
                .iter()
                .map(|(n, c)| Field::new(*n, c.data_type(), true))
                .collect::<Vec<_>>(),
        )
    }
}

/// Write `t` to `path` (through a temporary file beside it, so a failed export leaves no
/// half-written table).
pub fn write(path: &Path, t: &Table) -> Result<()> {
    let fail = |e: &dyn std::fmt::Display| Error::format(path, format!("parquet: {e}"));
    let schema = Arc::new(t.schema());
    let batch = RecordBatch::try_new(
        schema.clone(),
        t.columns.iter().map(|(_, c)| c.array()).collect(),
    )
    .map_err(|e| fail(&e))?;
    let tmp = path.with_extension("parquet.partial");
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(65_536))
        .build();
    let mut w = ArrowWriter::try_new(file, schema, Some(props)).map_err(|e| fail(&e))?;
    w.write(&batch).map_err(|e| fail(&e))?;
    w.close().map_err(|e| fail(&e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}
