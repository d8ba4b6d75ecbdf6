/** The default consent disclosure in Dutch, one entry per paragraph (see ../consent-text.ts). */
export const nl: readonly string[] = [
  'Toestemming voor het gebruik van elektronische documenten en handtekeningen',
  'De afzender van dit document wil het u elektronisch bezorgen en uw handtekening elektronisch verkrijgen. Lees de volgende informatie voordat u verdergaat.',
  'Papieren exemplaar. U hebt het recht dit document in plaats daarvan op papier te ontvangen. Wilt u een papieren exemplaar, neem dan contact op met de afzender via de contactgegevens die u al hebt; de afzender kan daarvoor een redelijke vergoeding vragen, mits dit vooraf wordt gemeld. Na ondertekening ontvangt u het voltooide document per e-mail en kunt u het afdrukken.',
  'Intrekken van uw toestemming. U kunt uw toestemming om deze zaak elektronisch af te handelen op elk moment vóór ondertekening intrekken door op deze pagina ‘Ik ga niet akkoord’ te kiezen of door dit aan de afzender te laten weten. Met het intrekken eindigt dit elektronische ondertekeningsverzoek: het document wordt geweigerd en de afzender moet het u op papier of op een andere manier bezorgen. Het intrekken heeft geen gevolgen voor de rechtsgeldigheid van wat u eerder elektronisch hebt ondertekend.',
  'Reikwijdte. Uw toestemming geldt voor dit document en voor de berichten hierover die wij u per e-mail sturen.',
  'Hardware en software. U hebt een apparaat met internettoegang nodig, een actuele webbrowser (bijvoorbeeld een recente versie van Chrome, Edge, Firefox of Safari) waarin JavaScript is ingeschakeld, een e-mailaccount en de mogelijkheid om pdf-bestanden te bekijken en op te slaan of af te drukken.',
  'Uw contactgegevens actueel houden. Als uw e-mailadres of andere contactgegevens wijzigen, laat dit dan aan de afzender weten, zodat die u over dit document kan bereiken.',
  'Door ‘Ik ga akkoord’ te kiezen, bevestigt u dat u deze informatie en documenten in pdf-formaat kunt openen en lezen, en dat u instemt met het gebruik van elektronische documenten en handtekeningen voor dit document.',
];
