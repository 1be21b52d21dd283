/**
 * jsdom lays nothing out. The clusters page's virtualized table (react-aria's Virtualizer) measures each row's
 * scrollHeight (0 in jsdom); and in a test environment it renders every row unless `clientWidth` and `clientHeight`
 * are defined on `HTMLElement.prototype`.
 */

/** Gives each element inside a grid the height of one clusters-table row while a test file runs. */
export function mockGridRowLayout(rowHeight = 66) {
  let spy: jest.SpyInstance | undefined;
  beforeAll(() => {
    spy = jest
      .spyOn(Element.prototype, 'scrollHeight', 'get')
      .mockImplementation(function height(this: Element) {
        return this.closest('[role="grid"]') ? rowHeight : 0;
      });
  });
  afterAll(() => spy?.mockRestore());
}

/**
 * Lays elements out as a browser window of `width` × `height` would (every element that size), so the Virtualizer
 * renders only the rows that window shows; undone after the test file.
 */
export function mockWindowLayout(width = 1024, height = 768) {
  const saved = {
    innerWidth: window.innerWidth,
    innerHeight: window.innerHeight,
  };
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, 'clientWidth', {
      configurable: true,
      get: () => width,
    });
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
      configurable: true,
      get: () => height,
    });
    window.innerWidth = width;
    window.innerHeight = height;
  });
  afterAll(() => {
    delete (HTMLElement.prototype as any).clientWidth;
    delete (HTMLElement.prototype as any).clientHeight;
    window.innerWidth = saved.innerWidth;
    window.innerHeight = saved.innerHeight;
  });
}
