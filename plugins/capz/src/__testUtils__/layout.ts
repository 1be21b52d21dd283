/**
 * jsdom lays nothing out, and in a test environment react-aria's Virtualizer (the clusters page's table) renders every
 * row unless `clientWidth` and `clientHeight` are defined on `HTMLElement.prototype`.
 */

/**
 * Lays elements out as a browser window of `width` × `height` would (every element that size), so the Virtualizer
 * renders only the rows that window shows; undone after the tests of the describe block it is called in.
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
