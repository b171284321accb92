import { Prisma } from './generated/client';
import { utcTimestamp, type SqlQueryable } from './sql';

/**
 * Typed plain-pg statements (the hot paths; see sql.ts). A statement has a
 * name (its prepared statement's, one per connection), its SQL, named typed
 * inputs and typed result columns:
 *
 * - the inputs are an object; `defineStatement` numbers them (`$1`, `$2`, …)
 *   in the order they are declared, and `run` turns the object into pg's
 *   positional `values` the same way, so no caller fills a slot by index;
 * - each result column says how pg's value becomes the type Prisma gives it
 *   (a `numeric` arrives as a string and is read into a `Prisma.Decimal`), and
 *   a model's columns are typed by the Prisma model (`modelColumns`), so a
 *   Decimal column cannot be read as a string, nor a nullable one as never null;
 * - every statement is registered (`definedStatements`): a test prepares each
 *   one against the migrated schema and compares its result columns with
 *   their declared types, so a drifted statement fails a test, not a request.
 */

// Postgres type OIDs (pg_type) of the values the hot paths read.
const PG = {
  bool: 16,
  int8: 20,
  int4: 23,
  text: 25,
  json: 114,
  textArray: 1009,
  varchar: 1043,
  timestamp: 1114,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

// ─── Result columns ─────────────────────────────────────────────────────────

/** What every result column has, whatever its value's type. */
export interface ResultColumnShape {
  /** The OIDs of the Postgres types it may have (a text column may be a varchar). */
  readonly pgTypes: readonly number[];
  readonly nullable: boolean;
  /** pg's value (after sql.ts's type parsers) to the column's value; absent when pg's value already is one. */
  readonly read?: (value: unknown) => unknown;
  /** The model's table and column it is, when it is one (checked against information_schema). */
  readonly model?: { readonly table: string; readonly column: string };
  readonly orNull: ResultColumnShape;
}

/** How one result column is read: the Postgres types it may arrive as, and its value in the type Prisma gives it. */
export interface ResultColumn<Value> extends ResultColumnShape {
  readonly read?: (value: unknown) => Value;
  /** The same column, for a null too (an outer join's side, a nullable model column). */
  readonly orNull: ResultColumn<Value | null>;
  /**
   * The same column typed as `Narrow`: for what Postgres cannot check, the
   * shape of a JSON value or the members of a text column (a mode, a status).
   */
  as<Narrow>(): ResultColumn<Narrow>;
  /** Only for the type checker: makes a column of strings no column of Decimals, nor of strings or null. */
  readonly valueType?: (value: Value) => Value;
}

function resultColumn<Value>(pgTypes: readonly number[], read?: (value: unknown) => Value): ResultColumn<Value> {
  const column = (nullable: boolean, model?: ResultColumn<Value>['model']): ResultColumn<Value> => {
    const self: ResultColumn<Value> = {
      pgTypes,
      nullable,
      read: read && nullable ? (value) => (value === null ? (null as Value) : read(value)) : read,
      model,
      get orNull() {
        return column(true, model) as ResultColumn<Value | null>;
      },
      as: <Narrow>() => self as unknown as ResultColumn<Narrow>,
    };
    return self;
  };
  return column(false);
}

/** The readers of the column types the hot paths use. */
export const sqlColumn = {
  int: resultColumn<number>([PG.int4]),
  /** int8: the pool reads it as a bigint (sql.ts). */
  bigint: resultColumn<bigint>([PG.int8]),
  text: resultColumn<string>([PG.text, PG.varchar]),
  uuid: resultColumn<string>([PG.uuid]),
  boolean: resultColumn<boolean>([PG.bool]),
  textList: resultColumn<string[]>([PG.textArray]),
  /** timestamp(3) holding UTC: the pool reads it as a Date in UTC (sql.ts). */
  timestamp: resultColumn<Date>([PG.timestamp]),
  json: resultColumn<Prisma.JsonValue>([PG.jsonb, PG.json]),
  /** A `numeric` model column (money: Decimal(30, 6)), read as Prisma reads it. */
  decimal: resultColumn<Prisma.Decimal>([PG.numeric], (value) => new Prisma.Decimal(String(value))),
  /** A computed `numeric` (not a model's column), read as its exact text for the caller's own Decimal. */
  numericText: resultColumn<string>([PG.numeric]),
};

/** The columns a statement returns, by result name. */
export type ResultColumns = Record<string, ResultColumnShape>;

/** The row a statement's result columns make. */
export type RowOf<Columns extends ResultColumns> = { [K in keyof Columns]: Columns[K] extends ResultColumn<infer V> ? V : never };

type ModelColumnReaders<Model> = { [K in keyof Model]?: ResultColumn<Model[K]> };

/**
 * Readers of a Prisma model's columns, checked against the model at compile
 * time: the keys must be its fields and each reader must give exactly the
 * field's type (`sqlColumn.decimal` for a Decimal, `.orNull` for a nullable
 * one). A row read with some of them is a `Pick<Model, …>`; a function that
 * must return the whole model fails to compile until a new field has its
 * reader. The test compares them with the table too (names, types, nullability).
 *
 *     const transactionColumns = modelColumns<LedgerTransaction>()('LedgerTransaction', { id: sqlColumn.int, amount: sqlColumn.decimal, … });
 */
export function modelColumns<Model>() {
  return <Columns extends ModelColumnReaders<Model>>(
    table: string,
    columns: Columns & Record<Exclude<keyof Columns, keyof Model>, never>,
  ): { [K in keyof Columns & keyof Model]-?: ResultColumn<Model[K]> } => {
    const bound: Record<string, ResultColumnShape> = {};
    for (const [name, column] of Object.entries(columns as Record<string, ResultColumn<unknown>>)) {
      bound[name] = bindToModel(column, { table, column: name });
    }
    return bound as never;
  };
}

function bindToModel<Value>(column: ResultColumn<Value>, model: { table: string; column: string }): ResultColumn<Value> {
  const bound: ResultColumn<Value> = {
    ...column,
    model,
    get orNull() {
      return bindToModel(column.orNull, model);
    },
    as: <Narrow>() => bound as unknown as ResultColumn<Narrow>,
  };
  return bound;
}

/** Some of `columns`, by name (`pickColumns(verificationColumns, ['id', 'status'])`). */
export function pickColumns<Columns extends ResultColumns, Name extends keyof Columns & string>(columns: Columns, names: readonly Name[]): Pick<Columns, Name> {
  return Object.fromEntries(names.map((name) => [name, columns[name]])) as Pick<Columns, Name>;
}

/** The same columns, each for a null too (the side of an outer join that may be missing). */
export function orNullColumns<Columns extends ResultColumns>(columns: Columns): { [K in keyof Columns]: ResultColumn<RowOf<Columns>[K] | null> } {
  return Object.fromEntries(Object.entries(columns).map(([name, column]) => [name, column.orNull])) as never;
}

/**
 * The SQL list of `columns`, of the model's table (`alias` when given):
 * `t."id", t."amount", …`, a column read under another name as `AS "name"`.
 * Use it for a statement's select list or RETURNING, never `*`.
 */
export function columnList(columns: ResultColumns, alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  return Object.entries(columns)
    .map(([name, column]) => {
      const source = column.model?.column ?? name;
      return source === name ? `${prefix}"${name}"` : `${prefix}"${source}" AS "${name}"`;
    })
    .join(', ');
}

/**
 * The column list of an INSERT into a Prisma model's table, checked against
 * the model at compile time: `"workspaceId", "event", …`, in the order given
 * (the order the statement's VALUES or SELECT writes them in).
 *
 *     INSERT INTO "OutboxEvent" (${insertColumns<OutboxEvent>()('workspaceId', 'event', 'payload', 'createdAt')})
 */
export function insertColumns<Model>() {
  return (...names: ReadonlyArray<keyof Model & string>): string => names.map((name) => `"${name}"`).join(', ');
}

// ─── Inputs ─────────────────────────────────────────────────────────────────

/** How one input is written: pg's value for it, and the Postgres type of its array (in an unnest). */
export interface SqlParameter<Value> {
  readonly kind: 'value';
  /** As in `$1::int[]`: an unnest of a batch's column casts to `<pgType>[]`. */
  readonly pgType: string;
  readonly write: (value: Value) => unknown;
  /** Inside a JSON document (`jsonRows`): a JSON value stays one rather than becoming its text. */
  readonly writeInJson: (value: Value) => unknown;
  readonly orNull: SqlParameter<Value | null>;
}

function sqlParameter<Value>(pgType: string, write: (value: Value) => unknown = (v) => v, writeInJson = write): SqlParameter<Value> {
  return {
    kind: 'value',
    pgType,
    write,
    writeInJson,
    get orNull(): SqlParameter<Value | null> {
      return sqlParameter<Value | null>(
        pgType,
        (v) => (v === null ? null : write(v)),
        (v) => (v === null ? null : writeInJson(v)),
      );
    },
  };
}

/** A value with `toFixed`: @cowrie/core's Decimal or Prisma's. */
interface FixedDecimal {
  toFixed(decimalPlaces: number): string;
}

/** The writers of the input types the hot paths use. */
export const sqlParam = {
  int: sqlParameter<number>('int'),
  /** int8, as its exact text. */
  bigint: sqlParameter<bigint>('bigint', String),
  text: sqlParameter<string>('text'),
  uuid: sqlParameter<string>('uuid'),
  boolean: sqlParameter<boolean>('boolean'),
  /** A `timestamp(3)` holding UTC (utcTimestamp, sql.ts). */
  timestamp: sqlParameter<Date>('timestamp(3)', utcTimestamp),
  /** Money, written with the 6 decimal places of every Decimal(30, 6) column. */
  decimal: sqlParameter<FixedDecimal>('numeric', (d) => d.toFixed(6)),
  /** A JSON value (jsonb), as its text; inside a JSON document, as itself. */
  json: sqlParameter<unknown>(
    'jsonb',
    (v) => JSON.stringify(v),
    (v) => v,
  ),
};

/** An array of values, one parameter (`= ANY($1::int[])`). */
export interface SqlListParameter<Value> {
  readonly kind: 'list';
  readonly of: SqlParameter<Value>;
}

/** A batch's rows as one array parameter per field, for `unnest` (`ref.unnest`, `ref.columns`). */
export interface SqlColumnsParameter<Fields extends SqlFields> {
  readonly kind: 'columns';
  readonly fields: Fields;
}

/** A batch's rows as one JSON array parameter, for `jsonb_to_recordset`. */
export interface SqlJsonRowsParameter<Fields extends SqlFields> {
  readonly kind: 'jsonRows';
  readonly fields: Fields;
}

export type SqlFields = Record<string, SqlParameter<never>>;

type ValueOf<P> = P extends SqlParameter<infer V> ? V : never;
type FieldValues<Fields extends SqlFields> = { [K in keyof Fields]: ValueOf<Fields[K]> };

/** A list of `of`: one parameter holding an array (`ANY(${p.ids}::int[])`). */
export const sqlList = <Value>(of: SqlParameter<Value>): SqlListParameter<Value> => ({ kind: 'list', of });

/**
 * A batch's rows as parallel arrays, one parameter per field: in the SQL,
 * `${p.rows.unnest}` is `unnest($1::int[], $2::text[], …)` and
 * `${p.rows.columns}` the fields' names in the same order (`AS i(${p.rows.columns})`).
 */
export const sqlColumns = <Fields extends SqlFields>(fields: Fields): SqlColumnsParameter<Fields> => ({ kind: 'columns', fields });

/** A batch's rows as one JSON array (`jsonb_to_recordset(${p.rows}::jsonb)`), each field written by its writer. */
export const sqlJsonRows = <Fields extends SqlFields>(fields: Fields): SqlJsonRowsParameter<Fields> => ({ kind: 'jsonRows', fields });

type AnyParameter = SqlParameter<never> | SqlListParameter<never> | SqlColumnsParameter<SqlFields> | SqlJsonRowsParameter<SqlFields>;
export type SqlParameters = Record<string, AnyParameter>;

/** The input object of a statement with these parameters. */
export type InputOf<Params extends SqlParameters> = {
  [K in keyof Params]: Params[K] extends SqlParameter<infer V>
    ? V
    : Params[K] extends SqlListParameter<infer V>
      ? readonly V[]
      : Params[K] extends SqlColumnsParameter<infer F> | SqlJsonRowsParameter<infer F>
        ? readonly FieldValues<F>[]
        : never;
};

/** What the SQL text names each parameter by: `$n`, or for a batch's columns their unnest and names. */
type References<Params extends SqlParameters> = {
  [K in keyof Params]: Params[K] extends SqlColumnsParameter<SqlFields> ? { unnest: string; columns: string } : string;
};

// ─── Statements ─────────────────────────────────────────────────────────────

export interface Statement<Input, Row> {
  /** The prepared statement's name (unique: pg refuses one name for two texts on a connection). */
  readonly name: string;
  readonly text: string;
  /** How many `$n` the text has (the test compares it with what Postgres counts). */
  readonly parameterCount: number;
  /** The result columns, by name; empty for a statement that returns no rows. */
  readonly result: ResultColumns;
  /** Runs it, prepared, with `input` as its values; the rows read into their declared types. */
  run(sql: SqlQueryable, input: Input): Promise<{ rows: Row[]; rowCount: number }>;
}

/** The row type of a statement. */
export type StatementRow<S> = S extends Statement<infer _Input, infer Row> ? Row : never;

export interface StatementSpec<Params extends SqlParameters, Result extends ResultColumns> {
  name: string;
  /** Its inputs, by name, in the order they are numbered. */
  params?: Params;
  /** The SQL, naming each input by its reference (`${p.workspaceId}`). */
  text: (p: References<Params>) => string;
  /** Its result columns (omit for none). */
  result?: Result;
}

const registry: Array<Statement<never, unknown>> = [];

/** Every statement defined so far in this process (the schema test prepares each one). */
export const definedStatements = (): ReadonlyArray<Statement<never, unknown>> => registry;

/**
 * A statement with named inputs and typed rows (see the top of this file).
 *
 *     const WALLET_AVAILABLE = defineStatement({
 *       name: 'cowrie-wallet-available',
 *       params: { walletId: sqlParam.int },
 *       text: (p) => `SELECT "balance" - "held" AS "available" FROM "Wallet" WHERE "id" = ${p.walletId}`,
 *       result: { available: sqlColumn.numericText },
 *     });
 *     const { rows } = await WALLET_AVAILABLE.run(sql, { walletId: 7 });
 */
export function defineStatement<Params extends SqlParameters = Record<never, never>, Result extends ResultColumns = Record<never, never>>(
  spec: StatementSpec<Params, Result>,
): Statement<InputOf<Params>, RowOf<Result>> {
  const params = (spec.params ?? {}) as SqlParameters;
  const result = (spec.result ?? {}) as ResultColumns;
  let count = 0;
  const unused = new Set(Object.keys(params));
  const references: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(params)) {
    if (param.kind === 'columns') {
      const fields = Object.entries(param.fields);
      const first = count + 1;
      count += fields.length;
      const unnest = `unnest(${fields.map(([, field], i) => `$${first + i}::${field.pgType}[]`).join(', ')})`;
      references[name] = {
        get unnest() {
          unused.delete(name);
          return unnest;
        },
        columns: fields.map(([field]) => `"${field}"`).join(', '),
      };
    } else {
      const reference = `$${++count}`;
      Object.defineProperty(references, name, {
        enumerable: true,
        get() {
          unused.delete(name);
          return reference;
        },
      });
    }
  }
  const text = spec.text(references as References<Params>);
  if (unused.size) throw new Error(`statement ${spec.name}: its text never uses ${[...unused].join(', ')}`);
  const write = valuesWriter(params);
  const readers = Object.entries(result).flatMap(([name, column]) => (column.read ? [[name, column.read] as const] : []));
  const statement: Statement<InputOf<Params>, RowOf<Result>> = {
    name: spec.name,
    text,
    parameterCount: count,
    result,
    async run(sql, input) {
      const { rows, rowCount } = await sql.query<Record<string, unknown>>({ name: spec.name, text, values: write(input as Record<string, unknown>) });
      if (readers.length) for (const row of rows) for (const [name, read] of readers) row[name] = read(row[name]);
      return { rows: rows as RowOf<Result>[], rowCount: rowCount ?? 0 };
    },
  };
  registry.push(statement as Statement<never, unknown>);
  return statement;
}

/** The input object to pg's positional values, in the order the parameters were numbered. */
function valuesWriter(params: SqlParameters): (input: Record<string, unknown>) => unknown[] {
  const writers = Object.entries(params).map(([name, param]): ((input: Record<string, unknown>, values: unknown[]) => void) => {
    switch (param.kind) {
      case 'value':
        return (input, values) => void values.push((param.write as (v: unknown) => unknown)(input[name]));
      case 'list': {
        const write = param.of.write as (v: unknown) => unknown;
        return (input, values) => void values.push((input[name] as unknown[]).map(write));
      }
      case 'columns': {
        const fields = Object.entries(param.fields).map(([field, p]) => [field, p.write as (v: unknown) => unknown] as const);
        return (input, values) => {
          const rows = input[name] as Array<Record<string, unknown>>;
          for (const [field, write] of fields) values.push(rows.map((row) => write(row[field])));
        };
      }
      case 'jsonRows': {
        const fields = Object.entries(param.fields).map(([field, p]) => [field, p.writeInJson as (v: unknown) => unknown] as const);
        return (input, values) => {
          const rows = input[name] as Array<Record<string, unknown>>;
          values.push(JSON.stringify(rows.map((row) => Object.fromEntries(fields.map(([field, write]) => [field, write(row[field])])))));
        };
      }
    }
  });
  return (input) => {
    const values: unknown[] = [];
    for (const write of writers) write(input, values);
    return values;
  };
}
