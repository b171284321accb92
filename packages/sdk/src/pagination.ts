/** One page of a cursor-paginated list, as the API answers it. */
export interface Page<Item> {
  data: Item[];
  meta: { request_id: string; next_cursor: string | null };
}

/**
 * A list call. `await` it for what the method always answered (its first
 * page); iterate it with `for await` for every item of every page, the SDK
 * following `meta.next_cursor`; or collect up to `limit` items with
 * `toArray({ limit })`. Each page is one request, made when it is needed.
 */
export class AutoPaginating<Item, First> implements PromiseLike<First>, AsyncIterable<Item> {
  private first: Promise<Page<Item>> | undefined;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page<Item>>,
    private readonly answer: (page: Page<Item>) => First,
  ) {}

  // The first page is asked for once, however often it is awaited.
  private firstPage(): Promise<Page<Item>> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }

  then<R1 = First, R2 = never>(
    onfulfilled?: ((value: First) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(this.answer).then(onfulfilled, onrejected);
  }

  /** Every item of every page, in the list's order. */
  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let page = await this.firstPage();
    for (;;) {
      yield* page.data;
      const cursor = page.meta.next_cursor;
      if (!cursor) return;
      page = await this.fetchPage(cursor);
    }
  }

  /** The first `limit` items (fewer when the list ends first), reading only the pages they are on. */
  async toArray({ limit }: { limit: number }): Promise<Item[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('toArray: limit must be a positive integer');
    const items: Item[] = [];
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
