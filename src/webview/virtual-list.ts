// A windowed list for long transcripts: only the rows near the viewport are in the DOM;
// the others are space, by measured height once seen and an estimate before. Appending a
// row or replacing one touches that row only. It sticks to the bottom while the reader is
// there, so a working agent's new rows come into view; scrolling up stops that.
const OVERSCAN_PX = 600;
const ESTIMATE_PX = 48;

export interface RowRenderer<T> {
  render(row: T, index: number): HTMLElement;
}

export class VirtualList<T> {
  private rows: T[] = [];
  private heights: number[] = [];
  private prefix: Float64Array = new Float64Array(1);
  private prefixValid = 0;
  private readonly top = document.createElement('div');
  private readonly bottom = document.createElement('div');
  private readonly body = document.createElement('div');
  /** Rendered rows by index. */
  private readonly shown = new Map<number, HTMLElement>();
  private stick = true;
  private frame = 0;

  constructor(private readonly scroller: HTMLElement, private readonly renderer: RowRenderer<T>) {
    scroller.append(this.top, this.body, this.bottom);
    scroller.addEventListener('scroll', () => {
      this.stick = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 4;
      this.schedule();
    }, { passive: true });
    new ResizeObserver(() => this.schedule()).observe(scroller);
  }

  get length(): number {
    return this.rows.length;
  }

  reset(rows: T[]): void {
    this.rows = rows.slice();
    this.heights = rows.map(() => ESTIMATE_PX);
    this.prefixValid = 0;
    for (const el of this.shown.values()) el.remove();
    this.shown.clear();
    this.stick = true;
    this.update();
  }

  /**
   * `rows` is the list with `added` rows put in front of the current ones (older history):
   * measured heights are kept, and a reader who scrolled up keeps seeing the same rows.
   */
  prepend(rows: T[], added: number): void {
    const fromBottom = this.offset(this.rows.length) - this.scroller.scrollTop;
    this.rows = rows.slice();
    this.heights = [...new Array<number>(added).fill(ESTIMATE_PX), ...this.heights];
    this.prefixValid = 0;
    // Rendered rows carry their index (for remeasure): draw the window again.
    for (const el of this.shown.values()) el.remove();
    this.shown.clear();
    this.update();
    if (!this.stick) {
      this.scroller.scrollTop = Math.max(0, this.offset(this.rows.length) - fromBottom);
      this.update();
    }
  }

  /** Draws now what a push or replace scheduled for the next frame (the end of a message). */
  flush(): void {
    if (!this.frame) return;
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.update();
  }

  push(row: T): void {
    this.rows.push(row);
    this.heights.push(ESTIMATE_PX);
    this.schedule();
  }

  replace(index: number, row: T): void {
    this.rows[index] = row;
    const el = this.shown.get(index);
    if (el) {
      const next = this.renderer.render(row, index);
      el.replaceWith(next);
      this.shown.set(index, next);
      this.measure(index, next);
    }
    this.schedule();
  }

  remove(index: number): void {
    this.rows.splice(index, 1);
    this.heights.splice(index, 1);
    this.prefixValid = Math.min(this.prefixValid, index);
    for (const el of this.shown.values()) el.remove();
    this.shown.clear();
    this.schedule();
  }

  /** The rendered element of a row (a streamed text being extended), if on screen. */
  element(index: number): HTMLElement | undefined {
    return this.shown.get(index);
  }

  /** A row's content changed size (folded or unfolded by the reader). */
  remeasure(index: number): void {
    const el = this.shown.get(index);
    if (el) this.measure(index, el);
    this.schedule();
  }

  private measure(index: number, el: HTMLElement): void {
    const h = el.offsetHeight;
    if (h && h !== this.heights[index]) {
      this.heights[index] = h;
      this.prefixValid = Math.min(this.prefixValid, index);
    }
  }

  private offset(i: number): number {
    if (this.prefix.length < this.rows.length + 1) {
      const grown = new Float64Array(Math.max(this.rows.length + 1, this.prefix.length * 2));
      grown.set(this.prefix.subarray(0, this.prefixValid + 1));
      this.prefix = grown;
    }
    for (let k = this.prefixValid; k < i; k++) this.prefix[k + 1] = this.prefix[k]! + this.heights[k]!;
    if (i > this.prefixValid) this.prefixValid = i;
    return this.prefix[i]!;
  }

  private indexAt(y: number): number {
    const total = this.offset(this.rows.length);
    if (y >= total) return Math.max(0, this.rows.length - 1);
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.prefix[mid]! <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  /** Renders the rows in view (now, not on the next frame). */
  update(): void {
    const n = this.rows.length;
    const view = this.scroller.clientHeight || 800;
    const total0 = this.offset(n);
    const scrollTop = this.stick ? Math.max(0, total0 - view) : this.scroller.scrollTop;
    const first = n ? this.indexAt(Math.max(0, scrollTop - OVERSCAN_PX)) : 0;
    let last = first;
    while (last < n && this.offset(last) < scrollTop + view + OVERSCAN_PX) last++;
    for (const [i, el] of this.shown) {
      if (i < first || i >= last) {
        el.remove();
        this.shown.delete(i);
      }
    }
    let before: HTMLElement | null = null;
    for (let i = last - 1; i >= first; i--) {
      let el = this.shown.get(i);
      if (!el) {
        el = this.renderer.render(this.rows[i]!, i);
        this.shown.set(i, el);
        this.body.insertBefore(el, before);
      }
      before = el;
    }
    for (let i = first; i < last; i++) this.measure(i, this.shown.get(i)!);
    const total = this.offset(n);
    this.top.style.height = `${this.offset(first)}px`;
    this.bottom.style.height = `${Math.max(0, total - this.offset(last))}px`;
    if (this.stick) this.scroller.scrollTop = this.scroller.scrollHeight;
  }
}
