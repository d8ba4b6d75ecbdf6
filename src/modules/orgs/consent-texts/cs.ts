/** The default consent disclosure in Czech, one entry per paragraph (see ../consent-text.ts). */
export const cs: readonly string[] = [
  'Souhlas s používáním elektronických dokumentů a podpisů',
  'Odesílatel tohoto dokumentu vám jej chce poskytnout a získat váš podpis elektronicky. Než budete pokračovat, přečtěte si prosím následující informace.',
  'Listinné vyhotovení. Máte právo obdržet tento dokument v listinné podobě namísto elektronické. O listinné vyhotovení požádejte odesílatele prostřednictvím kontaktních údajů, které již máte; odesílatel za ně může účtovat přiměřený poplatek, pokud vás na to upozorní. Po podpisu obdržíte dokončený dokument e-mailem a můžete si jej vytisknout.',
  'Odvolání souhlasu. Svůj souhlas s elektronickým jednáním můžete kdykoli před podpisem odvolat, a to volbou „Nesouhlasím“ na této stránce nebo sdělením odesílateli. Odvoláním souhlasu tato žádost o elektronický podpis končí: dokument je odmítnut a odesílatel vám jej musí poskytnout v listinné podobě nebo jiným způsobem. Odvolání souhlasu nemá vliv na právní účinky toho, co jste dříve podepsali elektronicky.',
  'Rozsah. Váš souhlas se vztahuje na tento dokument a na oznámení, která vám k němu zasíláme e-mailem.',
  'Hardware a software. Potřebujete zařízení s přístupem k internetu, aktuální webový prohlížeč (například novější verzi prohlížeče Chrome, Edge, Firefox nebo Safari) se zapnutým JavaScriptem, e-mailový účet a možnost zobrazit a uložit nebo vytisknout soubory PDF.',
  'Aktualizace kontaktních údajů. Pokud se změní vaše e-mailová adresa nebo jiné kontaktní údaje, oznamte to odesílateli, aby vás mohl ohledně tohoto dokumentu kontaktovat.',
  'Volbou „Souhlasím“ potvrzujete, že máte přístup k těmto informacím a k dokumentům ve formátu PDF a můžete je číst, a že souhlasíte s používáním elektronických dokumentů a podpisů pro tento dokument.',
];
