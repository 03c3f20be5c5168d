"""Exported names of JS/TS/Go/Rust/Java sources, read with tree-sitter
(batch/judging/exports/)."""

from __future__ import annotations

import sys
import time

import pytest
import tree_sitter

from batch.judging import exports
from batch.judging.exports import Export, coverage_problem, exported_names

JS = """\
// Slug helpers for the blog.
import { normalize } from "./text.js";

const DEFAULT_MAX = 60;

function clean(text) {
  return normalize(text).trim();
}

/** Turns a title into a URL slug. */
export function slugify(text, maxLength = DEFAULT_MAX) {
  return clean(text).toLowerCase().slice(0, maxLength);
}

export const SEPARATOR = "-";
export let counter = 0;

export class SlugCache extends Map {
  #hits = 0;
  constructor(limit) { super(); this.limit = limit; }
  lookup(title) { return this.get(title) ?? slugify(title); }
  static shared() { return new SlugCache(100); }
  _evict() {}
  #count() { this.#hits += 1; }
}

function unslug(slug) { return slug.replaceAll("-", " "); }
export { unslug as humanize, clean };
export { escape } from "./escape.js";

export default function main(argv) {
  return argv.map((a) => slugify(a));
}
"""

JS_EXPECTED = [
    Export("slugify", "function", "function slugify(text, maxLength = DEFAULT_MAX)"),
    Export("SEPARATOR", "const", "const SEPARATOR"),
    Export("counter", "variable", "let counter"),
    Export("SlugCache", "class", "class SlugCache extends Map"),
    Export("SlugCache.constructor", "constructor", "constructor(limit)"),
    Export("SlugCache.lookup", "method", "lookup(title)"),
    Export("SlugCache.shared", "method", "static shared()"),
    Export("humanize", "function", "function unslug(slug)"),
    Export("clean", "function", "function clean(text)"),
    Export("escape", "reexport", ""),
    Export("main", "function", "function main(argv)"),
]

CJS = """\
'use strict';

const path = require("path");

function resolveRoot(dir) {
  return path.resolve(dir);
}

function internalHelper() {
  return 42;
}

class Loader {
  load(name) { return require(name); }
  _cache() {}
}

module.exports = {
  resolveRoot,
  Loader,
  VERSION: "1.2.0",
  reset() {},
};
module.exports.extra = function extra(a, b) { return a + b; };
exports.timeout = 30;
"""

CJS_EXPECTED = [
    Export("resolveRoot", "function", "function resolveRoot(dir)"),
    Export("Loader", "class", "class Loader"),
    Export("Loader.load", "method", "load(name)"),
    Export("VERSION", "variable", "VERSION"),
    Export("reset", "function", "reset()"),
    Export("extra", "function", "module.exports.extra = function extra(a, b)"),
    Export("timeout", "variable", "exports.timeout"),
]

TS = """\
import type { Ledger } from "./ledger";

export interface AccountOptions {
  owner: string;
  overdraft?: number;
  notify(event: string): void;
}

export type Currency = "EUR" | "USD";

export enum Status { Open, Frozen, Closed }

interface InternalState { balance: number }

export abstract class Account {
  private state: InternalState = { balance: 0 };
  constructor(protected readonly options: AccountOptions) {}
  public deposit(amount: number): void { this.state.balance += amount; }
  abstract fee(amount: number): number;
  protected audit(ledger: Ledger): void {}
  private recompute(): void {}
  get balance(): number { return this.state.balance; }
}

function round(value: number): number { return Math.round(value * 100) / 100; }

export function convert(amount: number, from: Currency, to: Currency): number {
  return round(amount);
}

export const DEFAULT_CURRENCY: Currency = "EUR";
export const format = (amount: number): string => amount.toFixed(2);
"""

TS_EXPECTED = [
    Export("AccountOptions", "interface", "interface AccountOptions"),
    Export("AccountOptions.notify", "method", "notify(event: string): void"),
    Export("Currency", "type", 'type Currency = "EUR" | "USD"'),
    Export("Status", "enum", "enum Status"),
    Export("Account", "class", "abstract class Account"),
    Export(
        "Account.constructor",
        "constructor",
        "constructor(protected readonly options: AccountOptions)",
    ),
    Export("Account.deposit", "method", "public deposit(amount: number): void"),
    Export("Account.fee", "method", "abstract fee(amount: number): number"),
    Export("Account.balance", "method", "get balance(): number"),
    Export(
        "convert",
        "function",
        "function convert(amount: number, from: Currency, to: Currency): number",
    ),
    Export("DEFAULT_CURRENCY", "const", "const DEFAULT_CURRENCY: Currency"),
    Export("format", "function", "const format = (amount: number): string =>"),
]

TSX = """\
import React from "react";

type Props = { title: string };

function Badge({ title }: Props) {
  return <span className="badge">{title}</span>;
}

export function Header({ title }: Props): JSX.Element {
  return (
    <header>
      <Badge title={title} />
    </header>
  );
}

export default Header;
"""

GO = """\
// Package slug turns titles into URL slugs.
package slug

import (
\t"errors"
\t"strings"
)

// MaxLen is the longest slug made.
const MaxLen = 60

const separator = "-"

var ErrEmpty = errors.New("slug: empty title")

// Options tune Slugify.
type Options struct {
\tMax   int
\tlower bool
}

type cache map[string]string

// Slugify turns a title into a slug.
func Slugify(title string, opts Options) (string, error) {
\tif title == "" {
\t\treturn "", ErrEmpty
\t}
\treturn clean(title), nil
}

func clean(s string) string { return strings.ToLower(s) }

// Validate reports whether the options are usable.
func (o *Options) Validate() error { return nil }

func (o Options) normalize() Options { return o }

func (c cache) Get(k string) string { return c[k] }
"""

GO_EXPECTED = [
    Export("MaxLen", "const", "const MaxLen"),
    Export("ErrEmpty", "variable", "var ErrEmpty"),
    Export("Options", "struct", "type Options struct"),
    Export("Slugify", "function", "func Slugify(title string, opts Options) (string, error)"),
    Export("Options.Validate", "method", "func (o *Options) Validate() error"),
]

RUST = """\
//! A small bank ledger.
use std::collections::HashMap;

pub const MAX_ACCOUNTS: usize = 1_000;

/// One account.
#[derive(Debug, Clone)]
pub struct Account {
    pub owner: String,
    balance: i64,
}

struct Journal {
    entries: Vec<i64>,
}

pub enum Error {
    Overdrawn,
    Unknown(String),
}

pub trait Ledger {
    fn post(&mut self, amount: i64) -> Result<(), Error>;
}

impl Account {
    pub fn new(owner: &str) -> Self {
        Account { owner: owner.to_string(), balance: 0 }
    }
    pub fn deposit(&mut self, amount: i64) { self.balance += amount; }
    fn audit(&self) -> bool { self.balance >= 0 }
}

impl Journal {
    pub fn push(&mut self, amount: i64) { self.entries.push(amount); }
}

pub(crate) fn crate_helper() {}

fn checksum(map: &HashMap<String, i64>) -> i64 { map.values().sum() }

pub fn open(owner: &str) -> Account { Account::new(owner) }
"""

RUST_EXPECTED = [
    Export("MAX_ACCOUNTS", "const", "pub const MAX_ACCOUNTS: usize"),
    Export("Account", "struct", "pub struct Account"),
    Export("Error", "enum", "pub enum Error"),
    Export("Ledger", "trait", "pub trait Ledger"),
    Export("Ledger.post", "method", "fn post(&mut self, amount: i64) -> Result<(), Error>"),
    Export("Account.new", "method", "pub fn new(owner: &str) -> Self"),
    Export("Account.deposit", "method", "pub fn deposit(&mut self, amount: i64)"),
    Export("open", "function", "pub fn open(owner: &str) -> Account"),
]

JAVA = """\
package com.example.bank;

import java.util.ArrayList;
import java.util.List;

/** A bank account. */
public class Account {
    public static final int MAX = 10;
    private final String owner;
    private final List<Long> entries = new ArrayList<>();

    public Account(String owner) {
        this.owner = owner;
    }

    private Account() { this("nobody"); }

    /** Adds money. */
    @Deprecated
    public void deposit(long amount) {
        entries.add(amount);
    }

    public long balance() { return entries.stream().mapToLong(Long::longValue).sum(); }

    protected void audit() {}

    void reset() { entries.clear(); }

    private String describe() { return owner; }

    public static class Statement {
        public String render() { return ""; }
    }
}

class Helper {
    public void help() {}
}
"""

JAVA_EXPECTED = [
    Export("Account", "class", "public class Account"),
    Export("Account.Account", "constructor", "public Account(String owner)"),
    Export("Account.deposit", "method", "public void deposit(long amount)"),
    Export("Account.balance", "method", "public long balance()"),
    Export("Account.Statement", "class", "public static class Statement"),
    Export("Account.Statement.render", "method", "public String render()"),
]


@pytest.mark.parametrize(
    ("source", "suffix", "expected"),
    [
        (JS, ".js", JS_EXPECTED),
        (JS, ".mjs", JS_EXPECTED),
        (CJS, ".cjs", CJS_EXPECTED),
        (TS, ".ts", TS_EXPECTED),
        (GO, ".go", GO_EXPECTED),
        (RUST, ".rs", RUST_EXPECTED),
        (JAVA, ".java", JAVA_EXPECTED),
    ],
    ids=["js", "mjs", "cjs", "ts", "go", "rust", "java"],
)
def test_exported_names(source, suffix, expected):
    assert exported_names(source, suffix) == expected


def test_private_names_are_left_out():
    names = {
        e.name
        for suffix, source in [
            (".js", JS),
            (".cjs", CJS),
            (".ts", TS),
            (".go", GO),
            (".rs", RUST),
            (".java", JAVA),
        ]
        for e in exported_names(source, suffix)
    }
    for private in [
        "unslug",
        "DEFAULT_MAX",
        "SlugCache._evict",
        "SlugCache.#count",
        "internalHelper",
        "Loader._cache",
        "round",
        "InternalState",
        "Account.audit",
        "Account.recompute",
        "Account.state",
        "separator",
        "cache",
        "cache.Get",
        "Options.normalize",
        "Journal",
        "Journal.push",
        "crate_helper",
        "checksum",
        "Account.describe",
        "Account.reset",
        "Account.MAX",
        "Helper",
        "Helper.help",
    ]:
        assert private not in names, private


def test_tsx_and_default_export_of_a_local_name():
    assert exported_names(TSX, ".tsx") == [
        Export("Header", "function", "function Header({ title }: Props): JSX.Element"),
    ]
    assert exported_names("function run(a) {}\nexport default run;\n", ".js") == [
        Export("run", "function", "function run(a)")
    ]
    assert exported_names("export default class { go() {} }\n", ".js") == [
        Export("default", "class", "class"),
        Export("default.go", "method", "go()"),
    ]


def test_typescript_overloads_namespaces_and_declarations():
    source = """\
export function parse(text: string): Doc;
export function parse(bytes: Uint8Array): Doc;
export function parse(input: any): Doc { return new Doc(input); }
export declare function version(): string;
export namespace Units {
  export const METRE = 1;
  const hidden = 2;
}
export * as helpers from "./helpers";
export * from "./all";
"""
    assert exported_names(source, ".ts") == [
        Export("parse", "function", "function parse(text: string): Doc"),
        Export("parse", "function", "function parse(bytes: Uint8Array): Doc"),
        Export("parse", "function", "function parse(input: any): Doc"),
        Export("version", "function", "function version(): string"),
        Export("Units", "namespace", "namespace Units"),
        Export("Units.METRE", "const", "const METRE"),
        Export("helpers", "reexport", ""),
    ]


def test_go_groups_generics_and_interfaces():
    source = """\
package store

type (
\tID = string
\tStore[T any] struct{ items []T }
\tReader interface {
\t\tRead(id ID) (string, error)
\t\tclose()
\t}
)

var (
\tDefault, fallback Store[int]
)

func (s *Store[T]) Put(v T) {}
func Map[T, U any](xs []T, f func(T) U) []U { return nil }
"""
    assert exported_names(source, ".go") == [
        Export("ID", "type", "type ID = string"),
        Export("Store", "struct", "type Store[T any] struct"),
        Export("Reader", "interface", "type Reader interface"),
        Export("Reader.Read", "method", "Read(id ID) (string, error)"),
        Export("Default", "variable", "var Default Store[int]"),
        Export("Store.Put", "method", "func (s *Store[T]) Put(v T)"),
        Export("Map", "function", "func Map[T, U any](xs []T, f func(T) U) []U"),
    ]


def test_rust_reexports_modules_macros_and_trait_impls():
    source = """\
pub use crate::codec::{Decoder, encode as to_bytes, *};
pub mod codec {
    pub fn encode(v: &[u8]) -> Vec<u8> { v.to_vec() }
    fn private() {}
}
mod internal;
#[macro_export]
macro_rules! ledger { ($x:expr) => { $x }; }
pub struct Wrapper<T>(T);
impl<T> Wrapper<T> { pub fn get(&self) -> &T { &self.0 } }
impl std::fmt::Display for Wrapper<u8> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) }
}
"""
    assert exported_names(source, ".rs") == [
        Export("Decoder", "reexport", ""),
        Export("to_bytes", "reexport", ""),
        Export("codec", "module", "pub mod codec"),
        Export("codec.encode", "function", "pub fn encode(v: &[u8]) -> Vec<u8>"),
        Export("ledger", "macro", "macro_rules! ledger"),
        Export("Wrapper", "struct", "pub struct Wrapper<T>"),
        Export("Wrapper.get", "method", "pub fn get(&self) -> &T"),
    ]


def test_java_interfaces_enums_and_records():
    source = """\
package shapes;

public interface Shape {
    double area();
    default String label() { return "shape"; }
    private void check() {}
}

public enum Unit {
    CM, INCH;
    public double toMetres(double v) { return v; }
    double internal() { return 0; }
}

public record Point(int x, int y) {
    public Point {
    }
    public int sum() { return x + y; }
}
"""
    assert exported_names(source, ".java") == [
        Export("Shape", "interface", "public interface Shape"),
        Export("Shape.area", "method", "double area()"),
        Export("Shape.label", "method", "default String label()"),
        Export("Unit", "enum", "public enum Unit"),
        Export("Unit.toMetres", "method", "public double toMetres(double v)"),
        Export("Point", "record", "public record Point(int x, int y)"),
        Export("Point.Point", "constructor", "public Point"),
        Export("Point.sum", "method", "public int sum()"),
    ]


@pytest.mark.parametrize(
    ("source", "suffix", "expected"),
    [
        (
            "export function first(a) { return a + ; }\n"
            "export const mid = 2;\n"
            "}}\n"
            "export class Broken { ok() {} bad( { } }\n"
            "export function last(x) { return x; }\n",
            ".js",
            ["first", "mid", "Broken", "Broken.ok", "last"],
        ),
        (
            "export interface Opts { a: number; }\n"
            "export type = ;\n"
            "export function go(o: Opts): void { if (o.a > ) { } }\n"
            "class X { private y( }\n"
            "export const z = 1;\n",
            ".ts",
            ["Opts", "go", "z"],
        ),
        (
            "package p\nfunc First(a int) int {\n\treturn a +\n}\n\nvar = 3\n"
            "func Second() {}\ntype T struct{ X int }}\nfunc Third() {}\n",
            ".go",
            ["First", "Second", "T", "Third"],
        ),
        ("pub fn first() -> i32 { 1 + }\n} }\npub fn second() {}\n", ".rs", ["first", "second"]),
        (
            "public class B {\n  public void ok() {}\n  public void bad( { }\n"
            "  public int last() { return 1; }\n}\n",
            ".java",
            ["B", "B.ok", "B.bad", "B.last"],
        ),
    ],
    ids=["js", "ts", "go", "rust", "java"],
)
def test_syntax_errors_still_give_the_names_found(source, suffix, expected):
    language = exports._language(exports._grammar(suffix))
    assert tree_sitter.Parser(language).parse(source.encode()).root_node.has_error
    found = exported_names(source, suffix)
    assert found is not None
    assert [e.name for e in found] == expected


def test_unsupported_suffix():
    assert exported_names("IDENTIFICATION DIVISION.", ".cobol") is None
    assert coverage_problem(".cobol") == "no exported-name reader for .cobol files"
    for suffix in exports.LANGUAGES:
        assert coverage_problem(suffix) is None, suffix
    assert coverage_problem("GO") is None  # no dot, upper case
    assert exported_names("", ".go") == []


def test_missing_grammar_package_means_not_checked(monkeypatch):
    exports._language.cache_clear()
    monkeypatch.setitem(sys.modules, "tree_sitter_rust", None)  # import fails
    try:
        assert exported_names("pub fn f() {}", ".rs") is None
        assert coverage_problem(".rs") == "the tree-sitter-rust package is not installed"
        assert exported_names("func F() {}", ".go") is not None
    finally:
        exports._language.cache_clear()


def test_parsing_is_fast():
    exported_names(GO, ".go")  # load the grammar once
    big = GO + "".join(
        f"\nfunc Handler{i}(w Writer, r *Request) error {{ return nil }}\n" for i in range(2000)
    )
    start = time.perf_counter()
    found = exported_names(big, ".go")
    assert len(found) == len(GO_EXPECTED) + 2000
    assert time.perf_counter() - start < 5  # milliseconds in practice; generous for CI
