import type { SqlClient, SqlPool, Statement } from '@cowrie/db';

/** What Postgres makes of a statement's text, prepared without running it. */
interface PreparedShape {
  parameterTypes: number[];
  /** Its result columns in order; empty when it returns no rows. */
  fields: Array<{ name: string; dataTypeID: number }>;
}

/** pg's connection, as far as describing a statement needs it. */
interface ProtocolConnection {
  parse(query: { text: string; name?: string; types?: number[] }): void;
  describe(msg: { type: 'S'; name?: string }): void;
  sync(): void;
  once(event: 'parameterDescription', listener: (msg: { dataTypeIDs: number[] }) => void): void;
  removeListener(event: string, listener: (...args: never[]) => void): void;
}

/**
 * Parses `text` as an unnamed prepared statement and asks Postgres to describe
 * it (the extended protocol's Parse, Describe, Sync; nothing is run): the
 * parameter types Postgres inferred and the result columns. Parsing checks
 * every table, column, function and type the text names, as PREPARE does.
 * Written as a pg "submittable" (the interface pg-cursor uses).
 */
function describeStatement(client: SqlClient, text: string): Promise<PreparedShape> {
  return new Promise((resolve, reject) => {
    const shape: PreparedShape = { parameterTypes: [], fields: [] };
    let connection: ProtocolConnection | null = null;
    const onParameters = (msg: { dataTypeIDs: number[] }) => {
      shape.parameterTypes = msg.dataTypeIDs;
    };
    const done = () => connection?.removeListener('parameterDescription', onParameters);
    const submittable = {
      submit(conn: ProtocolConnection) {
        connection = conn;
        conn.once('parameterDescription', onParameters);
        conn.parse({ text, types: [] });
        conn.describe({ type: 'S' });
        conn.sync();
        return null;
      },
      handleRowDescription(msg: { fields: Array<{ name: string; dataTypeID: number }> }) {
        shape.fields = msg.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }));
      },
      handleDataRow() {},
      handleCommandComplete() {},
      handleEmptyQuery() {},
      handlePortalSuspended() {},
      handleCopyInResponse() {},
      handleCopyData() {},
      handleError(err: Error) {
        done();
        reject(err);
      },
      handleReadyForQuery() {
        done();
        resolve(shape);
      },
    };
    client.query(submittable as never);
  });
}

interface SchemaColumn {
  typeOid: number;
  nullable: boolean;
  /** An array column: Prisma makes a scalar list (`String[]`) a nullable column, but never writes a null to it. */
  isList: boolean;
}

async function schemaColumns(sql: SqlPool): Promise<Map<string, SchemaColumn>> {
  const { rows } = await sql.query<{ table: string; column: string } & SchemaColumn>(`
    SELECT table_name AS "table", column_name AS "column", (quote_ident(udt_schema) || '.' || quote_ident(udt_name))::regtype::oid::int AS "typeOid",
      is_nullable = 'YES' AS "nullable", data_type = 'ARRAY' AS "isList"
    FROM information_schema.columns WHERE table_schema = current_schema()`);
  return new Map(rows.map(({ table, column, ...schema }) => [`${table}.${column}`, schema]));
}

/** The names of Postgres types, by OID, for the problems' text. */
async function typeNamer(sql: SqlPool) {
  const { rows } = await sql.query<{ oid: number; name: string }>('SELECT oid::int AS "oid", format_type(oid, NULL) AS "name" FROM pg_type');
  const names = new Map(rows.map((t) => [t.oid, t.name]));
  const one = (oid: number) => names.get(oid) ?? String(oid);
  return { one, any: (oids: readonly number[]) => oids.map(one).join(' or ') };
}

/**
 * Checks each statement against the database's schema and returns what is
 * wrong, one line each (none: all is well):
 * - Postgres parses it (every table, column, function and type it names exists);
 * - it has as many parameters as its declared inputs make;
 * - its result columns are the declared ones, by name, and each has a
 *   Postgres type its reader expects (a numeric for a Decimal, and so on);
 * - each column declared as a model's exists in that table, with such a type,
 *   and is not nullable unless it is read as nullable;
 * - no two statements share a name.
 * Nothing is run or written.
 */
export async function checkStatementsAgainstSchema(sql: SqlPool, statements: ReadonlyArray<Statement<never, unknown>>): Promise<string[]> {
  const columns = await schemaColumns(sql);
  const typeName = await typeNamer(sql);
  const problems: string[] = [];
  const client = await sql.connect();
  try {
    for (const statement of statements) {
      const problem = (text: string) => problems.push(`${statement.name}: ${text}`);
      let shape: PreparedShape;
      try {
        shape = await describeStatement(client, statement.text);
      } catch (err) {
        problem(`Postgres refuses it: ${(err as Error).message}`);
        continue;
      }
      if (shape.parameterTypes.length !== statement.parameterCount) {
        problem(`Postgres counts ${shape.parameterTypes.length} parameters, its inputs make ${statement.parameterCount}`);
      }
      const returned = new Map(shape.fields.map((f) => [f.name, f.dataTypeID]));
      for (const field of shape.fields) if (!(field.name in statement.result)) problem(`returns "${field.name}", which it does not declare`);
      for (const [name, column] of Object.entries(statement.result)) {
        const dataTypeID = returned.get(name);
        if (dataTypeID === undefined) problem(`declares "${name}", which it does not return`);
        else if (!column.pgTypes.includes(dataTypeID)) problem(`returns "${name}" as ${typeName.one(dataTypeID)}, read as ${typeName.any(column.pgTypes)}`);
        if (!column.model) continue;
        const { table, column: columnName } = column.model;
        const inSchema = columns.get(`${table}.${columnName}`);
        if (!inSchema) problem(`reads "${table}"."${columnName}", which the schema does not have`);
        else if (!column.pgTypes.includes(inSchema.typeOid)) {
          problem(`reads "${table}"."${columnName}" (${typeName.one(inSchema.typeOid)}) as ${typeName.any(column.pgTypes)}`);
        } else if (inSchema.nullable && !inSchema.isList && !column.nullable) problem(`reads the nullable "${table}"."${columnName}" as never null`);
      }
    }
  } finally {
    client.release();
  }
  const names = statements.map((s) => s.name);
  for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i))) problems.push(`${name}: two statements have this name`);
  return problems;
}

/**
 * `pool` as a separate owner (batchers are per pool) that counts the named
 * statements run through it: `counts.get(name)` is how many times each was
 * sent, so a test can tell one batched statement from one per caller.
 */
export function countingStatements(pool: SqlPool): { sql: SqlPool; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const sql = new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (config: unknown, ...rest: unknown[]) => {
          const name = typeof config === 'object' && config !== null ? (config as { name?: string }).name : undefined;
          if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
          return (target.query as (...args: unknown[]) => unknown)(config, ...rest);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { sql, counts };
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

/**
 * Checks each statement's generic plan (the one a prepared statement settles
 * on, whatever its values), planned as if its tables were large, and returns, one line each, every index scan whose
 * condition leaves out the index's leading column: such a scan reads the
 * whole index, more of it the larger the table grows, where the statement
 * meant a lookup. Nothing is run.
 */
export async function checkStatementPlans(sql: SqlPool, statements: ReadonlyArray<Statement<never, unknown>>): Promise<string[]> {
  const { rows: leading } = await sql.query<{ index: string; column: string }>(`
    SELECT c.relname AS "index", a.attname AS "column" FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
    WHERE n.nspname = current_schema()`);
  const leadingColumn = new Map(leading.map((r) => [r.index, r.column]));
  const problems: string[] = [];
  const client = await sql.connect();
  try {
    // As on a large table: sequential scans off, so each lookup shows the index it would use (an empty test table is scanned).
    await client.query('SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off');
    for (const [i, statement] of statements.entries()) {
      const name = `plan_check_${i}`;
      try {
        await client.query(`PREPARE ${name} AS ${statement.text}`);
        const args = Array.from({ length: statement.parameterCount }, () => 'NULL').join(', ');
        const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE ${name}${args ? `(${args})` : ''}`);
        for (const node of planNodes(rows[0]!['QUERY PLAN'][0]!.Plan)) {
          const column = node['Index Name'] && leadingColumn.get(node['Index Name']);
          if (!column || !node['Index Cond']) continue;
          if (!node['Index Cond'].includes(`"${column}"`) && !new RegExp(`\\b${column}\\b`).test(node['Index Cond'])) {
            problems.push(`${statement.name}: ${node['Node Type']} on ${node['Index Name']} without its leading column ${column} (${node['Index Cond']})`);
          }
        }
      } catch (err) {
        problems.push(`${statement.name}: cannot be planned: ${(err as Error).message}`);
      } finally {
        await client.query(`DEALLOCATE ${name}`).catch(() => undefined);
      }
    }
  } finally {
    await client.query('RESET plan_cache_mode; RESET enable_seqscan').catch(() => undefined);
    client.release();
  }
  return problems;
}
